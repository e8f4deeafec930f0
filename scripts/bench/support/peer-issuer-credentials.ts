import 'reflect-metadata';
import { Document, MDoc } from '@auth0/mdl';
import { type Jwk } from '@openid4vc/oauth2';

import type { PeerSetup } from './peer-issuer-setup.ts';
import type { PeerIssuerOptions } from './peer-issuer-types.ts';

const DAY = 86_400_000;

/** An SD-JWT VC of the degree for `holder`, signed with the key the options choose. */
export async function issueSdJwt(
  setup: PeerSetup,
  options: PeerIssuerOptions,
  issuer: string,
  holder: Jwk,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const signer = options.signWithJwtVcIssuerKey ? setup.sdJwt.jwtVcIssuer : setup.sdJwt.jwks;
  return signer.issue(
    {
      iss: issuer,
      vct: setup.configurations.UniversityDegreeCredential.vct,
      iat: now,
      exp: now + 86_400,
      cnf: { jwk: holder },
      given_name: 'Alice',
      family_name: 'Anderson',
      degree: 'Bachelor of Science',
      department: 'Computer Science',
      graduation_year: 2012,
    } as never,
    { _sd: ['given_name', 'family_name', 'degree', 'department', 'graduation_year'] } as never,
    { header: { kid: 'peer-1' } } as never,
  );
}

/** An mDL for `holder`, signed by the document signer with @auth0/mdl. */
export async function issueMdoc(setup: PeerSetup, holder: Jwk): Promise<string> {
  const now = Date.now();
  const signed = await new Document('org.iso.18013.5.1.mDL')
    .addIssuerNameSpace('org.iso.18013.5.1', {
      family_name: 'Anderson',
      given_name: 'Alice',
      birth_date: '1990-04-12',
      issue_date: '2026-01-01',
      expiry_date: '2031-01-01',
      issuing_country: 'FR',
      issuing_authority: 'Demo',
      document_number: 'PD-1',
      age_over_18: true,
      age_over_21: true,
      un_distinguishing_sign: 'F',
      portrait: new Uint8Array(10),
    })
    .useDigestAlgorithm('SHA-256')
    .addValidityInfo({ signed: new Date(now), validFrom: new Date(now), validUntil: new Date(now + 180 * DAY) })
    .addDeviceKeyInfo({ deviceKey: holder as never })
    .sign({ issuerPrivateKey: setup.dsPrivate, issuerCertificate: setup.ds.pem, alg: 'ES256' });
  return Buffer.from(new MDoc([signed]).encode()).toString('base64url');
}
