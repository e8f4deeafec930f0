import { recordedExchangeOf, type RecordedExchange } from '../../machines/flow-run.ts';
import type { StoredEvent } from '../event-log.ts';

/** HAR 1.2 (W3C Web Performance draft "HTTP Archive format"), the parts Portico fills in. */
type NameValue = { name: string; value: string };
export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    pages: Array<{ startedDateTime: string; id: string; title: string; pageTimings: Record<string, number> }>;
    entries: HarEntry[];
  };
}
interface HarEntry {
  pageref: string;
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: NameValue[];
    headers: NameValue[];
    queryString: NameValue[];
    postData?: { mimeType: string; text: string; params?: NameValue[] };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: NameValue[];
    headers: NameValue[];
    content: { size: number; mimeType: string; text?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
}

const HTTP_VERSION = 'HTTP/1.1';
const pairs = (record: Record<string, string>): NameValue[] =>
  Object.entries(record).map(([name, value]) => ({ name, value: String(value) }));
const bodyText = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body));
const byteLength = (text: string) => new TextEncoder().encode(text).length;

function postData(request: RecordedExchange['request']): HarEntry['request']['postData'] {
  if (request.body === undefined) return undefined;
  const mimeType = request.headers['content-type'] ?? 'application/octet-stream';
  if (mimeType.startsWith('application/x-www-form-urlencoded') && request.body && typeof request.body === 'object') {
    const form = request.body as Record<string, string>;
    return {
      mimeType,
      text: new URLSearchParams(Object.entries(form).map(([k, v]) => [k, String(v)])).toString(),
      params: pairs(form),
    };
  }
  return { mimeType, text: bodyText(request.body) };
}

function entry(exchange: RecordedExchange, recordedAt: number, pageref: string, statusText: (s: number) => string) {
  const url = new URL(exchange.request.url);
  const post = postData(exchange.request);
  const responseText = exchange.response.body === undefined ? '' : bodyText(exchange.response.body);
  const wait = Math.max(0, exchange.duration_ms);
  const result: HarEntry = {
    pageref,
    startedDateTime: new Date(recordedAt - Math.ceil(wait)).toISOString(),
    time: wait,
    request: {
      method: exchange.request.method,
      url: exchange.request.url,
      httpVersion: HTTP_VERSION,
      cookies: [],
      headers: pairs(exchange.request.headers),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      ...(post ? { postData: post } : {}),
      headersSize: -1,
      bodySize: post ? byteLength(post.text) : 0,
    },
    response: {
      status: exchange.response.status,
      statusText: statusText(exchange.response.status),
      httpVersion: HTTP_VERSION,
      cookies: [],
      headers: pairs(exchange.response.headers),
      content: {
        size: byteLength(responseText),
        mimeType: exchange.response.headers['content-type'] ?? 'application/octet-stream',
        ...(responseText ? { text: responseText } : {}),
      },
      redirectURL: exchange.response.headers.location ?? '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait, receive: 0 },
    comment: exchange.step,
  };
  return result;
}

/**
 * A run's captured exchanges as a HAR 1.2 document, one page for the run and one entry per exchange,
 * redacted exactly as the log keeps them (the run page shows the same). The log records an exchange
 * once its response is read, so an entry starts its duration before that.
 */
export function runAsHar(
  runId: string,
  events: readonly StoredEvent[],
  options: { version: string; statusText: (status: number) => string },
): Har {
  const started = events[0]!;
  const { protocol, flow } = started.data as { protocol: string; flow: string };
  const pageref = `run_${runId}`;
  const entries = events
    .filter((e) => e.type === 'run.exchange_recorded')
    .map((e) => entry(recordedExchangeOf(e), e.at, pageref, options.statusText));
  return {
    log: {
      version: '1.2',
      creator: { name: 'Portico', version: options.version },
      pages: [
        {
          startedDateTime: new Date(started.at).toISOString(),
          id: pageref,
          title: `${protocol}/${flow} (run ${runId})`,
          pageTimings: {},
        },
      ],
      entries,
    },
  };
}
