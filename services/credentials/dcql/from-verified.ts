import type { VerifiedMdoc } from '../mdoc/verified.ts';
import type { VerifiedSdJwtVc } from '../sd-jwt/verify.ts';
import type { StoredCredential, StoredMdoc, StoredSdJwtVc, StoredW3c } from './types.ts';

type Authorities = StoredCredential['authorities'];

/** A verified SD-JWT VC as DCQL sees it: vct, the (fully disclosed) claims, holder binding from cnf. */
export const storedFromSdJwt = (id: string, v: VerifiedSdJwtVc, authorities?: Authorities): StoredSdJwtVc => ({
  id,
  format: 'dc+sd-jwt',
  vct: String(v.payload.vct),
  claims: v.claims,
  cryptographicHolderBinding: v.holderJwk !== undefined,
  ...(authorities ? { authorities } : {}),
});

/** A verified mdoc: doctype and namespaces; mdocs are always device-bound. */
export const storedFromMdoc = (id: string, v: VerifiedMdoc, authorities?: Authorities): StoredMdoc => ({
  id,
  format: 'mso_mdoc',
  doctype: v.docType,
  namespaces: v.claims,
  cryptographicHolderBinding: true,
  ...(authorities ? { authorities } : {}),
});

/** A W3C credential: claim paths start at the credential (e.g. ["credentialSubject", "given_name"]). */
export const storedFromW3c = (
  id: string,
  format: StoredW3c['format'],
  credential: Record<string, unknown>,
  holderBound: boolean,
  authorities?: Authorities,
): StoredW3c => ({
  id,
  format,
  type: Array.isArray(credential.type) ? (credential.type as string[]) : [],
  claims: credential,
  cryptographicHolderBinding: holderBound,
  ...(authorities ? { authorities } : {}),
});
