import { SignJWT, type JWK } from 'jose';
import { generateHolderKey, type KeyPair } from '../../../services/credentials/keys/index.ts';
import { issueSdJwtVc, type IssueSdJwtVcInput } from '../../../services/credentials/sd-jwt/index.ts';

/** 2026-01-01T00:00:00Z in seconds: every unit test runs on this injected clock. */
export const NOW = 1_767_225_600;
export const ISS = 'https://issuer.example';
export const AUD = 'https://verifier.example';

export interface SdJwtFixture {
  issuer: KeyPair;
  holder: KeyPair;
  jwks: { keys: JWK[] };
}

export async function sdJwtFixture(): Promise<SdJwtFixture> {
  const issuer = await generateHolderKey('ES256');
  const holder = await generateHolderKey('ES256');
  return { issuer, holder, jwks: { keys: [{ ...issuer.publicJwk, kid: issuer.kid, alg: 'ES256' }] } };
}

export const PID_CLAIMS = {
  given_name: 'Alice',
  family_name: 'Anderson',
  birthdate: '1990-04-12',
  address: { street_address: '1 Rue de Rivoli', locality: 'Paris', country: 'FR' },
  nationalities: ['FR', 'DE'],
  age_equal_or_over: { '18': true, '21': true },
};

export const PID_DISCLOSABLE: (string | number)[][] = [
  ['given_name'],
  ['family_name'],
  ['birthdate'],
  ['address'],
  ['address', 'street_address'],
  ['address', 'locality'],
  ['nationalities', 0],
  ['nationalities', 1],
  ['age_equal_or_over', '18'],
  ['age_equal_or_over', '21'],
];

export function issuePid(f: SdJwtFixture, overrides: Partial<IssueSdJwtVcInput> = {}) {
  return issueSdJwtVc({
    issuer: { alg: 'ES256', privateKey: f.issuer.privateKey, kid: f.issuer.kid, iss: ISS },
    vct: 'urn:eudi:pid:1',
    claims: PID_CLAIMS,
    disclosable: PID_DISCLOSABLE,
    holderJwk: f.holder.publicJwk,
    now: NOW,
    expiresIn: 86_400,
    decoys: 2,
    arrayDecoys: 2,
    ...overrides,
  });
}

/** Signs an arbitrary issuer payload (to build malformed but correctly signed SD-JWTs). */
export const signIssuerJwt = (f: SdJwtFixture, payload: Record<string, unknown>, typ = 'dc+sd-jwt') =>
  new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ, kid: f.issuer.kid }).sign(f.issuer.privateKey);
