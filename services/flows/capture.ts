import type { RecordedExchange } from '../../machines/flow-run.ts';
import { findTokens } from './token-finder.ts';
import { objectOf } from '../untrusted/json.ts';
import { samlMessagesOf } from '../saml/found-messages.ts';
import { applyEdit, type PendingRequest, type RequestEdit } from './request-edit.ts';

/** Step mode: asked before each request is sent; answers the learner's edit, if any (or throws to end the run). */
export type RequestGate = (request: PendingRequest) => Promise<RequestEdit | undefined>;

export interface DecodedToken {
  name: string;
  step: string;
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  signature?: 'removed';
  disclosures?: unknown[][];
}

const SHOWN_HEADERS = new Set([
  'content-type',
  'authorization',
  'dpop',
  'www-authenticate',
  'location',
  'cache-control',
  'dpop-nonce',
]);

/** What a run's requests go through: `fetch`'s shape, given by the adapter that starts runs. */
export type HttpTransport = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; redirect: 'manual' | 'follow' },
) => Promise<{ status: number; headers: Headers; text(): Promise<string> }>;

/** An HTTP client that records every exchange of a run and decodes the JWTs it meets. */
/** With the internal header only: the address of the caller a flow run's own request is made for. */
export const ON_BEHALF_OF_HEADER = 'x-portico-on-behalf-of';

export class HttpCapture {
  readonly exchanges: RecordedExchange[] = [];
  readonly tokens: DecodedToken[] = [];

  constructor(
    private readonly transport: HttpTransport,
    private readonly onExchange: (exchange: RecordedExchange) => Promise<void>,
    /**
     * A header sent, unrecorded, on requests to our own origin: the server's own calls are not rate
     * limited; `onBehalfOf`, the address of whoever started the run, for the limits that still count
     * those calls against that caller (client registrations).
     */
    private readonly internal?: { origin: string; header: string; value: string; onBehalfOf?: string },
    private readonly gate?: RequestGate,
  ) {}

  /**
   * One request; `annotations` name the rules the step demonstrates. The answer's `json` is its body
   * when that is a JSON object (else empty): the runners read members of it through `stringIn` and
   * `numberIn`, so a missing member fails the run by name.
   */
  async send(
    step: string,
    url: string,
    init: {
      method?: string;
      headers?: Record<string, string>;
      form?: Record<string, string>;
      json?: unknown;
      /** Follow redirects (each hop checked by the transport); by default a redirect comes back as it is. */
      follow?: boolean;
    } = {},
    annotations: string[] = [],
  ) {
    const method = init.method ?? (init.form || init.json !== undefined ? 'POST' : 'GET');
    let request: PendingRequest = {
      step,
      method,
      url,
      headers: { ...init.headers },
      ...(init.form ? { form: init.form } : {}),
      ...(init.json !== undefined ? { json: init.json } : {}),
    };
    let edits: string[] = [];
    const edit = this.gate && (await this.gate(request));
    if (edit) ({ request, edits } = applyEdit(request, edit));
    url = request.url;
    const headers: Record<string, string> = { ...request.headers };
    let body: string | undefined;
    if (request.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(request.form).toString();
    } else if (request.json !== undefined) {
      // JSON, or the JSON media type the caller names (SCIM's application/scim+json).
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(request.json);
    }
    const started = performance.now();
    const sent =
      this.internal && new URL(url).origin === this.internal.origin
        ? {
            ...headers,
            [this.internal.header]: this.internal.value,
            ...(this.internal.onBehalfOf ? { [ON_BEHALF_OF_HEADER]: this.internal.onBehalfOf } : {}),
          }
        : headers;
    const res = await this.transport(url, {
      method,
      headers: sent,
      ...(body !== undefined ? { body } : {}),
      redirect: init.follow ? 'follow' : 'manual',
    });
    const text = await res.text();
    const duration_ms = Math.round((performance.now() - started) * 100) / 100;
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    } else if (text.length > 600) {
      parsed = `${text.slice(0, 600)}… (${text.length} bytes)`;
    }
    const responseHeaders: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (SHOWN_HEADERS.has(k)) responseHeaders[k] = v;
    });
    const exchange: RecordedExchange = {
      step,
      request: {
        method,
        url,
        headers,
        ...(request.form ? { body: request.form } : request.json !== undefined ? { body: request.json } : {}),
      },
      response: { status: res.status, headers: responseHeaders, ...(parsed !== '' ? { body: parsed } : {}) },
      duration_ms,
      annotations,
      ...(edits.length > 0 ? { edited: true as const, edits } : {}),
    };
    const saml = samlMessagesOf({
      url,
      ...(request.form ? { form: request.form } : {}),
      ...(res.headers.get('location') ? { location: new URL(res.headers.get('location')!, url).href } : {}),
      ...((res.headers.get('content-type') ?? '').startsWith('text/html') ? { html: text } : {}),
    });
    if (saml.length > 0) exchange.saml = saml;
    this.exchanges.push(exchange);
    // A signed request object (RFC 9101) is a token of the run too.
    const responseBody = (res.headers.get('content-type') ?? '').startsWith('application/oauth-authz-req+jwt')
      ? { request_object: text }
      : parsed;
    const found = findTokens({ request: exchange.request, response: { body: responseBody } });
    if (found.length > 0) {
      exchange.tokens = found;
      this.tokens.push(...found.map((t) => ({ ...t, step })));
    }
    await this.onExchange(exchange);
    return { status: res.status, headers: res.headers, body: parsed, json: objectOf(parsed) ?? {}, text };
  }
}
