/** A claim path as in OpenID4VP §7 claims path pointers: object keys and array indexes. */
export type ClaimPath = (string | number)[];

/** A signing key as the issuer and holder use it. */
export interface SigningKey {
  alg: 'ES256' | 'ES384' | 'EdDSA' | 'RS256';
  privateKey: CryptoKey;
  kid?: string;
}

/** The typ values accepted on input; only the first is ever emitted. */
export const SD_JWT_VC_TYP = 'dc+sd-jwt';
export const LEGACY_SD_JWT_VC_TYP = 'vc+sd-jwt';
export const KB_JWT_TYP = 'kb+jwt';

/** Claims an SD-JWT VC keeps in the clear (SD-JWT VC §3.2.2). */
export const NEVER_DISCLOSABLE = [
  'iss',
  'nbf',
  'exp',
  'cnf',
  'vct',
  'vct#integrity',
  'status',
  'iat',
  '_sd',
  '_sd_alg',
  '...',
];

export interface SdJwtParts {
  issuerJwt: string;
  disclosures: string[];
  kbJwt?: string;
}
