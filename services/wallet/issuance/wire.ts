import type { JsonObject } from '../../untrusted/json.ts';
import { randomUUID } from 'node:crypto';
import { signDPoPProof } from '../../dpop/create.ts';
import { dpopNonceAsked } from '../../oauth/client-kit.ts';
import type { HopStep } from '../../../machines/wallet-exchange.ts';
import type { KeyPair } from '../../credentials/keys/index.ts';
import { EXCHANGE_HEADER, peerStreamOf, STREAM_HEADER } from '../../streams/correlation.ts';
import type { ExchangeRecorder } from '../exchange.ts';
import { UpstreamError, upstreamErrorToken, type OutboundHttp, type OutboundResponse } from '../../outbound.ts';

/** A call to an issuer or its authorization server. */
export interface WireRequest {
  method?: 'GET' | 'POST';
  form?: Record<string, string>;
  json?: unknown;
  /** A compact JWE body (`application/jwt`). */
  jwe?: string;
  headers?: Record<string, string>;
  /** Bearer or DPoP access token for the resource server. */
  accessToken?: { value: string; type: string };
}

export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body, when it is JSON. */
  json?: JsonObject;
  text: string;
}

/** DPoP for one exchange: a key, and the nonce each server last gave (authorization server and resource server apart). */
export interface DpopState {
  key: KeyPair;
  nonces: Map<string, string>;
  /** The wallet's clock in epoch seconds (`iat` of each proof). */
  nowS: () => number;
}

/** Client attestation headers for one exchange: the attestation and a PoP minted per request. */
export interface AttestationState {
  attestation: string;
  /** Mints a PoP for `audience` (fresh `jti`, the challenge endpoint's value when there is one). */
  pop(audience: string): Promise<string>;
  audience: string;
}

const MAX_TEXT = 1024 * 1024;

/** A DPoP proof (RFC 9449 §4.2): fresh `jti`, `ath` when an access token goes with it, the server's nonce when known. */
function dpopProof(state: DpopState, method: string, url: string, accessToken?: string): Promise<string> {
  const nonce = state.nonces.get(new URL(url).origin);
  return signDPoPProof(state.key, {
    method,
    url,
    nowS: state.nowS(),
    ...(accessToken ? { accessToken } : {}),
    ...(nonce ? { nonce } : {}),
  });
}

/**
 * The nonce rule of RFC 9449 (spec wallet behaviours 3 and 8): an authorization server asks with 400
 * `use_dpop_nonce`, a resource server with 401 and `WWW-Authenticate: DPoP error="use_dpop_nonce"`;
 * either way the `DPoP-Nonce` header carries the value to retry with.
 */
function nonceChallenge(response: OutboundResponse, side: 'as' | 'rs'): string | undefined {
  return dpopNonceAsked(
    {
      status: response.status,
      dpopNonce: response.headers['dpop-nonce'],
      wwwAuthenticate: response.headers['www-authenticate'],
      error: upstreamErrorToken(response.body),
    },
    side,
  );
}

/** Whether a request carries a DPoP proof: with a DPoP-bound access token, or where the caller asks for one (token, PAR). */
const dpopBound = (request: WireRequest, options: { dpop?: boolean }) =>
  request.accessToken ? request.accessToken.type.toLowerCase() === 'dpop' : options.dpop === true;

/** A fresh interaction id for requests to the resource server (`x-fapi-interaction-id`, a UUIDv4). */
export const interactionId = () => randomUUID();

/**
 * The wallet's wire to one issuer: every request goes through the outbound guard and is recorded;
 * DPoP proofs and client attestation PoPs are minted per attempt, and one `use_dpop_nonce` retry is
 * made with a fresh proof and a fresh PoP `jti`.
 */
export class IssuerWire {
  constructor(
    private readonly outbound: OutboundHttp,
    readonly recorder: ExchangeRecorder,
    /** Origins whose response bodies may be shown back to the caller (target and issuer). */
    private readonly trustedOrigins: ReadonlySet<string>,
    readonly dpop?: DpopState,
    readonly attestation?: AttestationState,
  ) {}

  async call(
    step: HopStep,
    url: string,
    request: WireRequest = {},
    options: { side?: 'as' | 'rs'; attest?: boolean; dpop?: boolean; note?: string } = {},
  ): Promise<WireResponse> {
    // An issuer or verifier names the endpoints: one that is not an absolute URL is its fault, not ours.
    if (!URL.canParse(url)) throw new UpstreamError(`The upstream named no URL for the ${step} request`);
    const method = request.method ?? (request.form || request.json !== undefined || request.jwe ? 'POST' : 'GET');
    let response = await this.send(method, url, request, options);
    const side = options.side;
    const nonce = this.dpop && dpopBound(request, options) && side ? nonceChallenge(response, side) : undefined;
    if (nonce && this.dpop) {
      await this.record(
        step,
        method,
        url,
        request,
        response,
        'use_dpop_nonce: retried once with the server nonce, a fresh DPoP proof and a fresh PoP jti',
      );
      this.dpop.nonces.set(new URL(url).origin, nonce);
      response = await this.send(method, url, request, options);
    }
    if (this.dpop && response.headers['dpop-nonce'])
      this.dpop.nonces.set(new URL(url).origin, response.headers['dpop-nonce']);
    return this.record(step, method, url, request, response, options.note);
  }

  private async send(
    method: 'GET' | 'POST',
    url: string,
    request: WireRequest,
    options: { attest?: boolean; dpop?: boolean },
  ): Promise<OutboundResponse> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      // Correlation: the issuer or verifier may record which wallet exchange it answered (a stream id, not a secret).
      [EXCHANGE_HEADER]: `wallet-exchange:${this.recorder.id}`,
      ...request.headers,
    };
    let body: string | undefined;
    if (request.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(request.form).toString();
    } else if (request.jwe) {
      headers['content-type'] = 'application/jwt';
      body = request.jwe;
    } else if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    }
    if (this.dpop && dpopBound(request, options))
      headers.dpop = await dpopProof(this.dpop, method, url, request.accessToken?.value);
    if (request.accessToken)
      headers.authorization = `${request.accessToken.type.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer'} ${request.accessToken.value}`;
    if (options.attest && this.attestation) {
      headers['oauth-client-attestation'] = this.attestation.attestation;
      headers['oauth-client-attestation-pop'] = await this.attestation.pop(this.attestation.audience);
    }
    return this.outbound.send(url, { method, headers, body });
  }

  private async record(
    step: HopStep,
    method: string,
    url: string,
    request: WireRequest,
    response: OutboundResponse,
    note?: string,
  ): Promise<WireResponse> {
    const text = response.body.length <= MAX_TEXT ? response.body.toString('utf8') : '';
    let json: JsonObject | undefined;
    if (/json/.test(response.headers['content-type'] ?? '')) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as JsonObject;
      } catch {
        json = undefined;
      }
    }
    const trusted = this.trustedOrigins.has(new URL(response.url).origin);
    const peer = peerStreamOf(response.headers[STREAM_HEADER]);
    if (peer) await this.recorder.correlate(peer);
    await this.recorder.hop({
      step,
      method,
      url,
      status: response.status,
      request: {
        ...(request.form
          ? { body: request.form }
          : request.json !== undefined
            ? { body: request.json }
            : request.jwe
              ? { body: '(compact JWE)' }
              : {}),
      },
      // Bodies of other origins are never reflected; their member names at most.
      response: trusted
        ? { body: json ?? (text.length > 600 ? `${text.slice(0, 600)}… (${text.length} bytes)` : text) }
        : {
            body: json
              ? {
                  members: Object.keys(json)
                    .filter((k) => /^[A-Za-z_]{1,64}$/.test(k))
                    .slice(0, 30),
                }
              : '(not shown: another origin)',
          },
      ...(note ? { note } : {}),
    });
    return { status: response.status, headers: response.headers, ...(json ? { json } : {}), text };
  }
}

/** The access token of a token response (RFC 6749 §5.1) as the resource calls send it; no string token is an upstream error. */
export function accessTokenOf(token: JsonObject): { value: string; type: string } {
  const { access_token: value, token_type: type } = token;
  if (typeof value !== 'string' || value === '') throw new UpstreamError('The token response carries no access_token');
  return { value, type: typeof type === 'string' ? type : 'Bearer' };
}

/** A 2xx answer, else the 502 the caller sees (status and an error token at most, never the body). */
export function expectOk(
  response: WireResponse,
  what: string,
  statuses: number[] = [200],
): WireResponse & { json: JsonObject } {
  if (!statuses.includes(response.status))
    throw new UpstreamError(
      `${what} answered HTTP ${response.status}`,
      response.status,
      upstreamErrorToken(Buffer.from(response.text)),
    );
  if (!response.json && response.status !== 204)
    throw new UpstreamError(`${what} did not answer a JSON object`, response.status);
  return response as WireResponse & { json: JsonObject };
}
