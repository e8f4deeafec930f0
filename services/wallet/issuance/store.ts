import type { JWK } from 'jose';
import type { KeyPair } from '../../credentials/keys/index.ts';
import { randomToken } from '../../crypto/random.ts';
import type { ExchangeRecorder } from '../exchange.ts';
import type { WalletSession } from '../sessions.ts';
import { InvalidCredential, checkCredential, heldCredential } from './credentials.ts';
import { discoverIssuer, issuerKeys, type IssuerView } from './discovery.ts';
import type { IssuanceRuntime } from './runtime.ts';
import type { ImportBody } from './service.ts';

/**
 * Behaviour 5: credentials are matched to proof keys by their binding, not array order; the one bound
 * to the holder (or device) key is active, the others are batch secondaries (mdoc ones never activated).
 */
export async function storeCredentials(
  rt: IssuanceRuntime,
  session: WalletSession,
  recorder: ExchangeRecorder,
  credentials: unknown[],
  keys: KeyPair[],
  input: {
    format: string;
    configurationId?: string;
    view?: IssuerView;
    jwks: { keys: JWK[] };
    credentialIssuer?: string;
  },
): Promise<string[]> {
  const byThumbprint = new Map(keys.map((k) => [k.kid, k]));
  const credentialIssuer = input.view?.credentialIssuer ?? input.credentialIssuer;
  const ids: string[] = [];
  for (const credential of credentials) {
    const checked = await checkCredential(input.format, credential, {
      credentialIssuer: credentialIssuer ?? '',
      issuerJwks: input.jwks,
      iacaRoots: rt.deps.iacaRoots,
      nowS: rt.nowS(),
    });
    const key = checked.holderKeyThumbprint ? byThumbprint.get(checked.holderKeyThumbprint) : undefined;
    if (!key) throw new InvalidCredential('holder_binding', 'the credential is not bound to a key the wallet proved');
    const primary = key === keys[0];
    const id = `cred_${randomToken(9)}`;
    session.credentials.set(
      id,
      heldCredential(id, checked, {
        configurationId: input.configurationId,
        credentialIssuer,
        batchSecondary: !primary,
      }),
    );
    session.statusTrust.set(id, {
      jwks: input.jwks,
      ...(checked.w3cIssuer ? { w3cIssuer: checked.w3cIssuer } : {}),
    });
    if (primary) session.activeCredentialId = id;
    else session.batchKeys.set(key.kid, key);
    await recorder.stored(id, checked.format, checked.holderKeyThumbprint, !primary);
    ids.push(id);
  }
  return ids;
}

/** A raw credential, checked like an issued one (its issuer's keys from the issuer metadata's jwks_uri). */
export async function importRawCredential(
  rt: IssuanceRuntime,
  session: WalletSession,
  recorder: ExchangeRecorder,
  body: ImportBody,
): Promise<Record<string, unknown>> {
  const format = body.format ?? guessFormat(body.credential);
  const wire = rt.plainWire(recorder);
  let jwks: { keys: JWK[] } = { keys: [] };
  let credentialIssuer: string | undefined;
  if (format === 'dc+sd-jwt' || format === 'jwt_vc_json' || format === 'jwt_vc_json-ld') {
    credentialIssuer = issuerOfJwt(String(body.credential));
    if (credentialIssuer && /^https?:\/\//.test(credentialIssuer))
      jwks = await issuerKeys(wire, await discoverIssuer(wire, credentialIssuer));
  }
  const holderKeys = [format === 'mso_mdoc' ? rt.deps.deviceKey.pair : session.holder];
  const ids = await storeCredentials(rt, session, recorder, [body.credential], holderKeys, {
    format,
    jwks,
    credentialIssuer,
  });
  return {
    status: 'issued',
    credential_ids: ids,
    active_credential_id: session.activeCredentialId,
    credential_source: 'import',
    ...recorder.view(),
  };
}

function guessFormat(credential: unknown): string {
  if (credential && typeof credential === 'object') return 'ldp_vc';
  const text = String(credential);
  if (text.includes('~')) return 'dc+sd-jwt';
  if (text.split('.').length === 3) return 'jwt_vc_json';
  return 'mso_mdoc';
}

function issuerOfJwt(jwt: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('~')[0].split('.')[1], 'base64url').toString('utf8')) as {
      iss?: unknown;
    };
    return typeof payload.iss === 'string' ? payload.iss : undefined;
  } catch {
    return undefined;
  }
}
