import { Agent, request, type Dispatcher } from 'undici';
import { nullRecord } from '../../services/untrusted/keys.ts';
import {
  UpstreamError,
  destinationNotAllowed,
  externalDisabled,
  type OutboundHttp,
  type OutboundRequest,
  type OutboundResponse,
} from '../../services/outbound.ts';
import {
  systemResolver,
  checkExternalUrl,
  vettedAddresses,
  checkedLookup,
  type Resolver,
} from './destination-rules.ts';

export { checkAddress, checkedLookup, checkExternalUrl, vettedAddresses, type Resolver } from './destination-rules.ts';

export interface GuardPolicy {
  /** Origins that pass without the external rules (the configured target and issuer). */
  trustedOrigins: ReadonlySet<string>;
  /** WALLET_ALLOW_EXTERNAL_VERIFIERS. */
  allowExternal: boolean;
  /** WALLET_DNS_OVERRIDES: consulted before DNS. */
  dnsOverrides?: ReadonlyMap<string, string[]>;
  /**
   * OUTBOUND_ALLOW_LOOPBACK (a test hook, off by default): loopback addresses (127.0.0.0/8, ::1) pass,
   * and so does plain http to a loopback address; every other rule stays.
   */
  allowLoopback?: boolean;
  resolver?: Resolver;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = [
  'authorization',
  'dpop',
  'cookie',
  'oauth-client-attestation',
  'oauth-client-attestation-pop',
];

/**
 * Reads a body of at most `maxBytes`. The body has an error listener before anything can destroy it:
 * undici turns a destroy before the end into an `error` event, and an unheard `error` event ends the
 * process. Every read below still surfaces its failure through its own promise.
 */
async function readCapped(
  body: Dispatcher.ResponseData<unknown>['body'],
  declared: string | string[] | undefined,
  maxBytes: number,
): Promise<Buffer> {
  body.on('error', ignoreBodyError);
  // A declared length is enforced by undici (it never delivers more), so a small one is read whole.
  const length = typeof declared === 'string' && /^\d{1,12}$/.test(declared) ? Number(declared) : undefined;
  if (length !== undefined && length > maxBytes) {
    body.destroy();
    throw new UpstreamError(`the response is larger than ${maxBytes} bytes`);
  }
  if (length !== undefined) return Buffer.from(await body.arrayBuffer());
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw new UpstreamError(`the response is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function ignoreBodyError(): void {}

const isTimeout = (error: unknown) =>
  /Timeout/.test(String((error as { code?: string; name?: string })?.code ?? (error as Error)?.name ?? ''));

/** The refusal hidden in a connector error, when the checked lookup refused the destination. */
const refusalIn = (error: unknown): Error | undefined => {
  for (let e = error as { cause?: unknown; error?: string } | undefined; e; e = e.cause as typeof e) {
    if (e instanceof Error && (e as { error?: string }).error === 'destination_not_allowed') return e;
  }
  return undefined;
};

function redirectTarget(location: string, from: URL): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new UpstreamError('the redirect names no valid URL');
  }
}

function absoluteUrl(target: string): URL {
  try {
    return new URL(target);
  } catch {
    throw destinationNotAllowed('not an absolute URL');
  }
}

/**
 * The wallet's HTTP client (decisions section 10): trusted origins pass; anything else needs
 * WALLET_ALLOW_EXTERNAL_VERIFIERS, https, no userinfo, an acceptable host and only `unicast` addresses,
 * dialled through the checked lookup; at most two redirects, each checked again; 10 s for each whole
 * response (a total deadline, not an idle timeout); 1 MiB.
 * Failures are `UpstreamError`s that never carry upstream bytes.
 */
export class GuardedHttp implements OutboundHttp {
  private readonly external: Agent;
  private readonly trusted: Agent;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;

  constructor(private readonly policy: GuardPolicy) {
    this.timeoutMs = policy.timeoutMs ?? 10_000;
    this.maxBytes = policy.maxBytes ?? 1024 * 1024;
    this.maxRedirects = policy.maxRedirects ?? 2;
    const timeouts = { headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs, connectTimeout: this.timeoutMs };
    this.external = new Agent({
      ...timeouts,
      connect: {
        lookup: checkedLookup(policy.resolver ?? systemResolver, policy.dnsOverrides, policy.allowLoopback) as never,
      },
    });
    this.trusted = new Agent(timeouts);
  }

  /** Which rules a URL meets before anything is sent; returns the agent to dial it with. */
  private admit(url: URL): Agent {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw destinationNotAllowed('only http(s) URLs are fetched');
    if (this.policy.trustedOrigins.has(url.origin) && !url.username && !url.password) return this.trusted;
    if (!this.policy.allowExternal) throw externalDisabled(url.href);
    checkExternalUrl(url, this.policy.allowLoopback);
    return this.external;
  }

  /**
   * Every rule `send` applies before it dials, DNS included, with nothing sent: a feature can refuse a
   * caller's URL before it starts work on it (a flow run against a target).
   */
  async vet(target: string): Promise<void> {
    const url = absoluteUrl(target);
    if (this.admit(url) !== this.external) return;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (/^[\d.]+$/.test(host) || host.includes(':')) return; // an IP literal: judged by admit already
    await vettedAddresses(
      host,
      this.policy.resolver ?? systemResolver,
      this.policy.dnsOverrides,
      this.policy.allowLoopback,
    );
  }

  async send(target: string, init: OutboundRequest = {}): Promise<OutboundResponse> {
    let url = absoluteUrl(target);
    let method = init.method ?? 'GET';
    let body = init.body;
    let headers = { ...init.headers };
    const hops: string[] = [];
    for (;;) {
      const agent = this.admit(url);
      hops.push(url.href);
      let response: Dispatcher.ResponseData<unknown>;
      // One deadline for the whole response, connect to last byte: an upstream trickling a byte now
      // and then never resets it (the agents' timeouts only bound each wait).
      const deadline = AbortSignal.timeout(this.timeoutMs);
      const timedOut = (error: unknown) => deadline.aborted || isTimeout(error);
      try {
        response = await request(url.href, { method, headers, body, dispatcher: agent, signal: deadline });
      } catch (error) {
        const refusal = refusalIn(error);
        if (refusal) throw refusal;
        throw new UpstreamError(
          timedOut(error) ? `no answer within ${this.timeoutMs / 1000} s` : `${url.origin} could not be reached`,
        );
      }
      const status = response.statusCode;
      const location = response.headers.location;
      if (REDIRECTS.has(status) && typeof location === 'string' && init.followRedirects !== false) {
        response.body.on('error', ignoreBodyError).resume();
        if (hops.length > this.maxRedirects)
          throw new UpstreamError(`more than ${this.maxRedirects} redirects`, status);
        const next = redirectTarget(location, url);
        if (next.origin !== url.origin)
          headers = Object.fromEntries(
            Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADERS.includes(k.toLowerCase())),
          );
        if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'content-type'));
        }
        url = next;
        continue;
      }
      let data: Buffer;
      try {
        data = await readCapped(response.body, response.headers['content-length'], this.maxBytes);
      } catch (error) {
        throw error instanceof UpstreamError
          ? error
          : new UpstreamError(
              timedOut(error)
                ? `the whole response did not arrive within ${this.timeoutMs / 1000} s`
                : 'the response broke off',
              status,
            );
      }
      const flat = nullRecord<string>(); // header names come from the upstream
      for (const [k, v] of Object.entries(response.headers))
        if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
      return { status, headers: flat, body: data, url: url.href, hops };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.external.close(), this.trusted.close()]);
  }
}
