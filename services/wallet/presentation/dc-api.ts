import { decodeJwt } from 'jose';
import { randomToken } from '../../crypto/random.ts';
import { invalidRequest, OAuthError } from '../../errors.ts';
import { isWebOrigin } from '../../untrusted/origin.ts';
import { IssuerWire } from '../issuance/wire.ts';
import type { WalletSession } from '../sessions.ts';
import { encryptAnswer } from '../../oauth/client-kit.ts';
import { requestTransactions, requireAuthenticated } from './rules.ts';
import type { PendingRequest, PresentBody, WalletPresentation } from './service.ts';
import { authenticateRequest, type RequestTrust, type ResolvedRequest } from './request.ts';

/** The exchange protocols this wallet answers over the Digital Credentials API (OpenID4VP 1.0 Appendix A.1). */
const DC_API_PROTOCOLS = ['openid4vp-v1-unsigned', 'openid4vp-v1-signed'] as const;
type Protocol = (typeof DC_API_PROTOCOLS)[number];

/** `POST /api/dc-api/present`: what a page handed `navigator.credentials.get`, and the origin the browser saw. */
export interface DcApiBody {
  origin?: unknown;
  requests?: unknown;
}

/** The origin as a browser reports it: scheme, host and port of an http(s) URL, nothing more. */
function checkedOrigin(origin: unknown): string {
  if (!isWebOrigin(origin))
    throw invalidRequest('origin must be the origin the browser reports, such as https://verifier.example');
  return origin;
}

/** The first request of a protocol this wallet speaks, as a platform wallet chooses among a page's requests. */
function chosenRequest(requests: unknown): { protocol: Protocol; data: Record<string, unknown> } {
  if (!Array.isArray(requests) || requests.length === 0)
    throw invalidRequest('requests must be the non-empty list of {protocol, data} the page passed');
  const found = requests.find(
    (r): r is { protocol: Protocol; data: Record<string, unknown> } =>
      !!r &&
      typeof r === 'object' &&
      DC_API_PROTOCOLS.includes((r as { protocol?: unknown }).protocol as Protocol) &&
      !!(r as { data?: unknown }).data &&
      typeof (r as { data?: unknown }).data === 'object',
  );
  if (!found) throw invalidRequest(`no request of a protocol this wallet speaks (${DC_API_PROTOCOLS.join(', ')})`);
  return found;
}

/**
 * A DC API request read and authenticated (Appendix A.2, A.3): unsigned, its client_id ignored and
 * its expected_origins too; signed, the request object verified by its client identifier prefix and
 * the origin found in its expected_origins by plain string comparison.
 */
async function resolveDcApiRequest(
  wire: IssuerWire,
  chosen: { protocol: Protocol; data: Record<string, unknown> },
  origin: string,
  trust: RequestTrust,
): Promise<ResolvedRequest> {
  if (chosen.protocol === 'openid4vp-v1-unsigned') {
    const params: Record<string, unknown> = { ...chosen.data };
    delete params.client_id;
    delete params.expected_origins;
    if (params.request !== undefined) throw invalidRequest('an unsigned request carries no request object');
    return { clientId: `origin:${origin}`, prefix: 'origin', params, verified: false, error: 'unsigned' };
  }
  const jwt = chosen.data.request;
  if (typeof jwt !== 'string') throw invalidRequest('a signed request carries its request object as data.request');
  let params: Record<string, unknown>;
  try {
    params = decodeJwt(jwt);
  } catch {
    throw invalidRequest('data.request is not a JWT');
  }
  const resolved = await authenticateRequest(wire, { params, jwt }, trust);
  const expected = params.expected_origins;
  if (!Array.isArray(expected) || !expected.includes(origin))
    throw invalidRequest(`the signed request does not list the origin ${origin} in expected_origins`);
  return resolved;
}

/** The request rules of the DC API modes: dc_api or dc_api.jwt, a nonce, a DCQL query; a key for dc_api.jwt. */
function checkDcApiParams(params: Record<string, unknown>): void {
  if (params.response_type !== 'vp_token') throw invalidRequest('response_type must be vp_token');
  if (params.response_mode !== 'dc_api' && params.response_mode !== 'dc_api.jwt')
    throw invalidRequest('response_mode must be dc_api or dc_api.jwt over the Digital Credentials API');
  if (typeof params.nonce !== 'string' || params.nonce === '') throw invalidRequest('nonce is required');
  if (!params.dcql_query || typeof params.dcql_query !== 'object') throw invalidRequest('dcql_query is required');
  const metadata = params.client_metadata as { jwks?: { keys?: unknown } } | undefined;
  if (params.response_mode === 'dc_api.jwt' && !Array.isArray(metadata?.jwks?.keys))
    throw invalidRequest('dc_api.jwt needs client_metadata.jwks');
}

/**
 * `POST /api/dc-api/present`: what a platform wallet hands back to the browser (OpenID4VP 1.0
 * Appendix A.4), for an agent to post to the verifier with the origin. Headless: approvals are the
 * body's, as on `/api/present`; a trusted origin gets the missing credential issued first.
 */
export async function presentThroughBrowser(
  wallet: WalletPresentation,
  session: WalletSession,
  body: DcApiBody & PresentBody,
  app: string,
): Promise<Record<string, unknown>> {
  const origin = checkedOrigin(body.origin);
  const chosen = chosenRequest(body.requests);
  const recorder = await wallet.deps.exchanges.start('presentation', session.id, origin);
  try {
    const wire = new IssuerWire(wallet.deps.outbound, recorder, wallet.deps.trustedOrigins);
    const resolved = await resolveDcApiRequest(wire, chosen, origin, {
      verifierTrustAnchorsPem: wallet.deps.verifierTrustAnchorsPem,
      trustedAttestationIssuers: wallet.deps.settings.trustedVerifierAttestationIssuers,
      nowS: wallet.nowS(),
    });
    requireAuthenticated(resolved);
    checkDcApiParams(resolved.params);
    const transactions = requestTransactions(resolved.params);
    const pending: PendingRequest = {
      id: `req_${randomToken(12)}`,
      resolved,
      trustedTarget: wallet.deps.trustedOrigins.has(origin),
      recorder,
      origin,
      ...(transactions ? { transactions } : {}),
    };
    await wallet.issueIfMissing(session, pending, app);
    const { vpToken, presented, encryptionJwk } = await wallet.vpTokenFor(session, pending, body);
    const encrypted = encryptionJwk
      ? await encryptAnswer({ vp_token: vpToken }, encryptionJwk, resolved.params)
      : undefined;
    await recorder.presented(origin, 200, presented, encrypted?.enc);
    return {
      protocol: chosen.protocol,
      data: encrypted ? { response: encrypted.jwe } : { vp_token: vpToken },
      origin,
      presented,
      ...(encrypted ? { enc: encrypted.enc } : {}),
      ...recorder.view(),
    };
  } catch (error) {
    await recorder.failed(error instanceof OAuthError ? error.error : 'server_error');
    throw error;
  }
}
