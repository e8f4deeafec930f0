import { jwksKeys } from '../../untrusted/jwk.ts';
import { memberAt, type JsonObject } from '../../untrusted/json.ts';
import type { JWK } from 'jose';
import { encryptAnswer } from '../../oauth/client-kit.ts';
import type { CredentialMatch } from '../../credentials/dcql/types.ts';
import { didJwkFromJwk, type KeyPair } from '../../credentials/keys/index.ts';
import {
  createDeviceResponse,
  dcApiSessionTranscript,
  oid4vpSessionTranscript,
  parseIssuerSigned,
} from '../../credentials/mdoc/index.ts';
import { presentSdJwtVc } from '../../credentials/sd-jwt/present.ts';
import { MDOC_TRANSACTION_NAMESPACE } from '../../credentials/transaction-data.ts';
import { createJwtVp } from '../../credentials/w3c/jwt-vc.ts';
import { createLdpVp } from '../../credentials/w3c/ldp-vc.ts';
import { invalidRequest, oauthError } from '../../errors.ts';
import { IssuerWire } from '../issuance/wire.ts';
import { responseUriOf } from './request.ts';
import { UpstreamError, upstreamErrorToken } from '../../outbound.ts';
import type { HeldCredential, WalletSession } from '../sessions.ts';

import { MDL_NAMESPACE_PATH, redirectUriRefusal } from './rules.ts';
import type { PendingRequest, PresentationDeps } from './service.ts';
import type { TransactionClaims } from './transactions.ts';

const nowS = (deps: PresentationDeps) => Math.floor(deps.clock.now() / 1000);

/** Claim paths to release: the person's pick when given (only paths the match offers), else exactly what the query matched. */
export function disclosed(
  match: CredentialMatch,
  picked?: Array<Array<string | number>>,
): Array<Array<string | number>> {
  const offered = match.claims.flatMap((c) => c.paths);
  if (!picked) return offered;
  const key = (p: Array<string | number>) => JSON.stringify(p);
  const allowed = new Set(offered.map(key));
  return picked.filter((p) => allowed.has(key(p)));
}

/** Behaviour 1: the verifier's ECDH-ES key from client_metadata.jwks. */
export function encryptionKey(params: JsonObject): JWK {
  const keys = jwksKeys(memberAt(params, 'client_metadata', 'jwks'));
  const key = keys.find(
    (k) => k.kty === 'EC' && (k.use === undefined || k.use === 'enc') && (k.alg === undefined || k.alg === 'ECDH-ES'),
  );
  if (!key) throw invalidRequest('direct_post.jwt without an ECDH-ES key in client_metadata.jwks');
  return key;
}

/** The key a credential is bound to: the session holder key, a batch key, or (mdoc, behaviour 3) the device key. */
function boundKey(deps: PresentationDeps, session: WalletSession, held: HeldCredential): KeyPair {
  const thumbprint = held.holder_key_thumbprint;
  if (held.format === 'mso_mdoc') {
    if (thumbprint !== deps.deviceKey.pair.kid)
      throw oauthError(
        'no_matching_credential',
        'This mdoc is bound to a device key this wallet no longer has (the device key is ephemeral without WALLET_DEVICE_KEY_PATH)',
      );
    return deps.deviceKey.pair;
  }
  if (thumbprint === session.holder.kid) return session.holder;
  const batch = thumbprint ? session.batchKeys.get(thumbprint) : undefined;
  if (!batch)
    throw oauthError('no_matching_credential', 'The key this credential is bound to is not held by this session');
  return batch;
}

/** How a presentation is bound beyond the request: its encryption key, its transactions, a DC API origin. */
export interface PresentationBinding {
  encryptionJwk?: JWK;
  transactions?: TransactionClaims;
  origin?: string;
}

export async function presentation(
  deps: PresentationDeps,

  session: WalletSession,
  held: HeldCredential,
  paths: Array<Array<string | number>>,
  params: JsonObject,
  binding: PresentationBinding = {},
): Promise<unknown> {
  const { encryptionJwk, transactions, origin } = binding;
  const key = boundKey(deps, session, held);
  const now = nowS(deps);
  // Over the DC API the origin is the audience (OpenID4VP 1.0 Appendix A.4); otherwise the client_id.
  const audience = origin !== undefined ? `origin:${origin}` : String(params.client_id);
  if (held.format === 'dc+sd-jwt') {
    return presentSdJwtVc(held.credential, {
      disclose: paths,
      keyBinding: {
        holder: { alg: key.alg, privateKey: key.privateKey },
        aud: audience,
        nonce: String(params.nonce),
        now,
        ...(transactions ? { claims: transactions } : {}),
      },
    });
  }
  if (held.format === 'mso_mdoc') {
    const disclose: Record<string, string[]> = {};
    for (const path of paths)
      if (path.length === MDL_NAMESPACE_PATH) (disclose[String(path[0])] ??= []).push(String(path[1]));
    const encryption = encryptionJwk ? { encryptionKey: encryptionJwk } : {};
    const sessionTranscript =
      origin !== undefined
        ? await dcApiSessionTranscript({ origin, nonce: String(params.nonce), ...encryption })
        : await oid4vpSessionTranscript({
            clientId: String(params.client_id),
            nonce: String(params.nonce),
            responseUri: String(params.response_uri),
            ...encryption,
          });
    const response = createDeviceResponse({
      issuerSigned: parseIssuerSigned(Buffer.from(held.credential, 'base64url')),
      disclose,
      deviceKey: { privateKey: key.privateKey },
      sessionTranscript,
      // The transaction hashes are device-signed elements (docs/decisions.md).
      ...(transactions ? { deviceNameSpaces: { [MDOC_TRANSACTION_NAMESPACE]: transactions } } : {}),
    });
    return Buffer.from(response).toString('base64url');
  }
  const did = didJwkFromJwk(key.publicJwk);
  if (held.format === 'ldp_vc') {
    return createLdpVp({
      credentials: [JSON.parse(held.credential)],
      holder: did,
      signer: {
        cryptosuite: key.alg === 'EdDSA' ? 'eddsa-rdfc-2022' : 'ecdsa-rdfc-2019',
        privateKey: key.privateKey,
        verificationMethod: `${did}#0`,
      } as never,
      challenge: String(params.nonce),
      domain: audience,
      now,
    });
  }
  return createJwtVp({
    holder: { alg: key.alg, privateKey: key.privateKey, kid: `${did}#0`, did } as never,
    credentials: [held.credential],
    aud: audience,
    nonce: String(params.nonce),
    now,
  });
}

/** The response to the verifier: form-encoded, or an ECDH-ES JWE (A256GCM when advertised, else A128GCM). */
export async function sendResponse(
  deps: PresentationDeps,

  pending: PendingRequest,
  members: Record<string, unknown>,
  encryptionJwk?: JWK,
): Promise<Record<string, unknown>> {
  const params = pending.resolved.params;
  const state = typeof params.state === 'string' ? { state: params.state } : {};
  let form: Record<string, string>;
  let enc: string | undefined;
  if (encryptionJwk && members.vp_token !== undefined) {
    const encrypted = await encryptAnswer({ ...members, ...state }, encryptionJwk, params);
    enc = encrypted.enc;
    form = { response: encrypted.jwe };
  } else {
    form = Object.fromEntries(
      Object.entries({ ...members, ...state }).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
    );
  }
  const wire = new IssuerWire(deps.outbound, pending.recorder, deps.trustedOrigins);
  const response = await wire.call('response', responseUriOf(params), { form });
  if (response.status < 200 || response.status >= 300)
    throw new UpstreamError(
      `The verifier's response URI answered HTTP ${response.status}`,
      response.status,
      upstreamErrorToken(Buffer.from(response.text)),
    );
  const redirect = response.json?.redirect_uri;
  const refusal = redirect === undefined ? undefined : redirectUriRefusal(redirect);
  return {
    upstream_status: response.status,
    ...(redirect !== undefined && !refusal ? { redirect_uri: redirect } : {}),
    ...(refusal ? { redirect_uri_refused: refusal } : {}),
    ...(enc ? { enc } : {}),
  };
}
