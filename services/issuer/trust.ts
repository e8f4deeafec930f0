import { exportJWK, type JWK } from 'jose';
import { didJwkFromJwk } from '../credentials/keys/did-jwk.ts';
import type { KeyRing } from '../keys.ts';
import type { CredentialTrust } from '../verifier/settings.ts';
import type { IssuerPki, IssuerSettings } from './settings.ts';

const KEY_SET = 'oid4vci';

/** The issuer's published keys: its ES256 keys (from the key ring, rotating) and the document signer with x5c. */
export interface IssuerKeys {
  /** The document signer as a JWK with its certificate. */
  documentSignerJwk: JWK & { x5c: string[] };
  /** `jwks_uri` of the issuer and its AS: a new object only after a rotation. */
  jwks(): { keys: JWK[] };
}

export async function issuerKeys(keys: KeyRing, pki: IssuerPki): Promise<IssuerKeys> {
  const documentSignerJwk = {
    ...(await exportJWK(pki.documentSigner.publicKey)),
    alg: 'ES256',
    use: 'sig',
    kid: 'document-signer',
    x5c: [Buffer.from(pki.documentSigner.certificate).toString('base64')],
  };
  let served = { keys: [...keys.jwks(KEY_SET).keys, documentSignerJwk] };
  return {
    documentSignerJwk,
    jwks() {
      const current = keys.jwks(KEY_SET).keys;
      if (current.length + 1 !== served.keys.length || current.some((k, i) => k.kid !== served.keys[i].kid))
        served = { keys: [...current, documentSignerJwk] };
      return served;
    },
  };
}

/**
 * Whom the verifier trusts for credentials: what this origin's issuer signs (its JWKS as served, the
 * did:jwk of its keys, its IACA). Built once by the composition root, for the verifier and the issuer alike.
 */
export function credentialTrustOf(
  settings: IssuerSettings,
  pki: IssuerPki,
  keys: KeyRing,
  published: IssuerKeys,
): CredentialTrust {
  return {
    issuer: settings.issuer,
    jwks: () => published.jwks(),
    w3cIssuers: () => keys.jwks(KEY_SET).keys.map((k) => didJwkFromJwk(k)),
    iacaRoots: [pki.iaca.pem],
  };
}
