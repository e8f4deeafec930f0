import { OAuthError, oauthError } from './errors.ts';

/**
 * The one way services reach an origin a caller chose (an adapter implements it with the SSRF guard):
 * the wallet's issuers and verifiers, flow runs against a target.
 * Services never call fetch themselves.
 */
export interface OutboundRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /** false: a redirect comes back as it is (a flow runner follows its own); default true, each hop checked. */
  followRedirects?: boolean;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
  /** Every URL requested, in order (the first one included). */
  hops: string[];
}

export interface OutboundHttp {
  send(url: string, request?: OutboundRequest): Promise<OutboundResponse>;
}

/** A destination the guard refuses before anything is sent (400 `destination_not_allowed`). */
export const destinationNotAllowed = (rule: string) =>
  oauthError('destination_not_allowed', `The destination is not allowed: ${rule}; nothing was sent`);

/** External destinations while WALLET_ALLOW_EXTERNAL_VERIFIERS is false (403). */
export const externalDisabled = (url: string) =>
  oauthError(
    'external_verifiers_disabled',
    `${new URL(url).origin} is outside the configured target and issuer, and external destinations are disabled (WALLET_ALLOW_EXTERNAL_VERIFIERS=false)`,
  );

/**
 * An upstream that failed: 502 with its status and, at most, an OAuth error token it named. Upstream
 * bytes are never reflected: only a `[a-z_]{1,64}` token survives.
 */
export class UpstreamError extends OAuthError {
  constructor(
    description: string,
    readonly upstreamStatus?: number,
    readonly upstreamError?: string,
  ) {
    super('upstream_error', description);
  }

  override toJSON() {
    return {
      ...super.toJSON(),
      ...(this.upstreamStatus !== undefined ? { upstream_status: this.upstreamStatus } : {}),
      ...(this.upstreamError ? { upstream_error: this.upstreamError } : {}),
    };
  }
}

/** The OAuth `error` token of an upstream JSON body, when it is one (`[a-z_]{1,64}`); nothing else of the body. */
export function upstreamErrorToken(body: Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    const token = parsed && typeof parsed === 'object' ? (parsed as { error?: unknown }).error : undefined;
    return typeof token === 'string' && /^[a-z_]{1,64}$/.test(token) ? token : undefined;
  } catch {
    return undefined;
  }
}

/** A non-2xx upstream answer as the 502 the caller sees. */
export const upstreamFailed = (response: OutboundResponse, what: string) =>
  new UpstreamError(`${what} answered HTTP ${response.status}`, response.status, upstreamErrorToken(response.body));
