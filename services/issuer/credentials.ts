import { MDOC_TRANSACTION_NAMESPACE } from '../credentials/transaction-data.ts';
import type { JWK } from 'jose';
import { fullDate, issueMdoc } from '../credentials/mdoc/index.ts';
import { issueSdJwtVc } from '../credentials/sd-jwt/issue.ts';
import { didJwkFromJwk } from '../credentials/keys/index.ts';
import { issueJwtVc, issueLdpVc } from '../credentials/w3c/index.ts';
import { bitstringEntries, type StatusPurpose } from '../credentials/status-list/bitstring-credential.ts';
import { statusClaim } from '../credentials/status-list/reference.ts';
import type { KeyRing, SigningKey } from '../keys.ts';
import {
  DEGREE_TYPES,
  ISSUING_COUNTRY,
  MDL_NAMESPACE,
  MDOC_TTL_S,
  SD_JWT_TTL_S,
  W3C_CONTEXT,
  type CredentialConfiguration,
  type IssuerPki,
  type IssuerSettings,
} from './settings.ts';

export interface IssueContext {
  settings: IssuerSettings;
  pki: IssuerPki;
  keys: KeyRing;
  holderJwk: JWK;
  user: { id: string; claims: Record<string, unknown> };
  nowMs: number;
  /** Where the credential's status lives: a Token Status List entry, and its W3C lists per purpose. */
  status?: IssuedStatus;
}

/** A credential's status slot as it is written into it. */
interface IssuedStatus {
  idx: number;
  /** The Status List Token's URI. */
  uri: string;
  /** The W3C BitstringStatusListCredential of a purpose. */
  bitstringUrl: (purpose: StatusPurpose) => string;
}

const DAY_S = 86_400;
const MDOC_BACKDATE_S = 300;
const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/** The demo mDL elements of a user (org.iso.18013.5.1), dates as CBOR full-date tags. */
function mdlElements(user: IssueContext['user'], now: number): Record<string, unknown> {
  const given = String(user.claims.given_name ?? user.id);
  const family = String(user.claims.family_name ?? 'Demo');
  return {
    family_name: family,
    given_name: given,
    birth_date: fullDate('1990-04-12'),
    issue_date: fullDate(isoDay(now)),
    expiry_date: fullDate(isoDay(now + 5 * 365 * DAY_S)),
    issuing_country: ISSUING_COUNTRY,
    issuing_authority: 'Portico Demo Licensing Authority',
    document_number: `PD-${user.id.toUpperCase()}-0001`,
    portrait: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]),
    driving_privileges: [
      {
        vehicle_category_code: 'B',
        issue_date: fullDate('2010-06-01'),
        expiry_date: fullDate(isoDay(now + 5 * 365 * DAY_S)),
      },
    ],
    un_distinguishing_sign: 'F',
    age_over_18: true,
    age_over_21: true,
  };
}

/** The demo degree claims of a user; every one selectively disclosable. */
const degreeClaims = (user: IssueContext['user']) => ({
  given_name: String(user.claims.given_name ?? user.id),
  family_name: String(user.claims.family_name ?? 'Demo'),
  degree: 'Bachelor of Science',
  department: 'Computer Science',
  graduation_year: 2012,
});

/** A credential as the credential response carries it: a string, or a JSON object for `ldp_vc`. */
export type IssuedCredential = string | Record<string, unknown>;

/** One credential of `configuration` bound to the holder key, through the codec layer. */
export async function issueCredential(
  configuration: CredentialConfiguration,
  ctx: IssueContext,
): Promise<IssuedCredential> {
  const now = Math.floor(ctx.nowMs / 1000);
  if (configuration.format === 'mso_mdoc') {
    const { encoded } = issueMdoc({
      docType: configuration.type,
      namespaces: { [MDL_NAMESPACE]: mdlElements(ctx.user, now) },
      deviceKey: ctx.holderJwk,
      signer: { privateKey: ctx.pki.documentSigner.privateKey, x5chain: [ctx.pki.documentSigner.certificate] },
      // Signed and valid from a few minutes back (ISO 18013-5 wants validFrom >= signed), so a verifier
      // whose clock runs behind ours still accepts it.
      signed: now - MDOC_BACKDATE_S,
      validFrom: now - MDOC_BACKDATE_S,
      validUntil: now + MDOC_TTL_S,
      ...(ctx.status ? { status: { idx: ctx.status.idx, uri: ctx.status.uri } } : {}),
      // The holder may sign transaction hashes with the device key (OpenID4VP 1.0 §8.4).
      deviceSignedNamespaces: [MDOC_TRANSACTION_NAMESPACE],
    });
    return Buffer.from(encoded).toString('base64url');
  }
  const key = ctx.keys.signing('oid4vci', 'ES256');
  const claims = degreeClaims(ctx.user);
  if (configuration.format !== 'dc+sd-jwt') return issueW3c(configuration, ctx, key, claims, now);
  // HAIP SD-JWT VCs are signed by the document signer and carry its certificate (x5c); others by the issuer key (kid).
  const signer = configuration.haip
    ? {
        alg: 'ES256' as const,
        privateKey: ctx.pki.documentSigner.privateKey,
        iss: ctx.settings.issuer,
        x5c: [Buffer.from(ctx.pki.documentSigner.certificate).toString('base64')],
      }
    : { alg: 'ES256' as const, privateKey: key.privateKey as CryptoKey, kid: key.kid, iss: ctx.settings.issuer };
  const issued = await issueSdJwtVc({
    issuer: signer,
    vct: configuration.type,
    claims,
    disclosable: Object.keys(claims).map((name) => [name]),
    holderJwk: ctx.holderJwk,
    now,
    expiresIn: SD_JWT_TTL_S,
    ...(ctx.status ? { status: statusClaim(ctx.status) } : {}),
  });
  return issued.sdJwt;
}

const isoSeconds = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

/**
 * W3C credentials (`jwt_vc_json`, `jwt_vc_json-ld`, `ldp_vc`): the issuer is the did:jwk of the
 * issuer key, the subject the did:jwk of the proven holder key; `ldp_vc` is secured with
 * `ecdsa-rdfc-2019` by that key.
 */
async function issueW3c(
  configuration: CredentialConfiguration,
  ctx: IssueContext,
  key: SigningKey,
  claims: Record<string, unknown>,
  now: number,
): Promise<IssuedCredential> {
  const issuerDid = didJwkFromJwk(key.publicJwk);
  const credential = {
    '@context': [W3C_CONTEXT],
    type: DEGREE_TYPES,
    issuer: issuerDid,
    validFrom: isoSeconds(now),
    validUntil: isoSeconds(now + SD_JWT_TTL_S),
    credentialSubject: { id: didJwkFromJwk(ctx.holderJwk), ...claims },
    ...(ctx.status ? { credentialStatus: bitstringEntries(ctx.status.bitstringUrl, ctx.status.idx) } : {}),
  };
  if (configuration.format === 'ldp_vc') {
    return await issueLdpVc(
      credential,
      { cryptosuite: 'ecdsa-rdfc-2019', privateKey: key.privateKey as CryptoKey, verificationMethod: `${issuerDid}#0` },
      now,
    );
  }
  const format = configuration.format === 'jwt_vc_json-ld' ? 'jwt_vc_json-ld' : 'jwt_vc_json';
  return issueJwtVc({
    format,
    credential,
    issuer: { alg: 'ES256', privateKey: key.privateKey as CryptoKey, kid: `${issuerDid}#0` },
    now,
    expiresIn: SD_JWT_TTL_S,
  });
}
