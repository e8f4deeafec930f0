import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { didJwkFromJwk } from '../../services/credentials/keys/did-jwk.ts';
import {
  createDeviceResponse,
  oid4vpSessionTranscript,
  parseIssuerSigned,
} from '../../services/credentials/mdoc/index.ts';
import { presentSdJwtVc } from '../../services/credentials/sd-jwt/present.ts';
import { createJwtVp } from '../../services/credentials/w3c/jwt-vc.ts';
import { createLdpVp } from '../../services/credentials/w3c/ldp-vc.ts';
import { exchange, form, json } from './main-server.ts';

/** A holder key pair (ES256, extractable so tests can hand it to other libraries). */
export interface HolderKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}
export async function holderKey(): Promise<HolderKey> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, publicKey, jwk: await exportJWK(publicKey) };
}

/**
 * One credential of `configurationId` from our issuer over HTTP (pre-authorized code, one JWT proof).
 * `via` is where the requests go when BASE_URL names a host the test cannot dial.
 */
export async function issueFromOurIssuer(
  baseUrl: string,
  configurationId: string,
  holder: HolderKey,
  nowS: number,
  options: { user?: string; via?: string } = {},
): Promise<string | Record<string, unknown>> {
  return (await issueWithOffer(baseUrl, configurationId, holder, nowS, options)).credential;
}

/** The status token of each offer these helpers created: only an offer's creator may change its status. */
const statusTokens = new Map<string, string>();

/** Remembers an offer-creation answer's status token (for offers a test creates itself). */
export const rememberOffer = (offer: Record<string, any>) => statusTokens.set(offer.offer_id, offer.status_token);

/** The headers of an offer's creator: its status token as a Bearer token. */
export const asCreator = (offerId: string): Record<string, string> => ({
  authorization: `Bearer ${statusTokens.get(offerId) ?? 'unknown-offer'}`,
});

/** The same, with the offer's id (its status document; status changes with `asCreator`). */
export async function issueWithOffer(
  baseUrl: string,
  configurationId: string,
  holder: HolderKey,
  nowS: number,
  options: { user?: string; via?: string } = {},
): Promise<{ credential: string | Record<string, unknown>; offerId: string }> {
  const user = options.user ?? 'alice';
  const audience = `${baseUrl}/oid4vci`;
  baseUrl = options.via ?? baseUrl;
  const offer = await exchange(
    baseUrl,
    '/oid4vci/offers',
    json({ credential_configuration_ids: [configurationId], user }),
  );
  if (offer.status !== 201) throw new Error(`offer: ${JSON.stringify(offer.body)}`);
  rememberOffer(offer.body);
  const token = await exchange(
    baseUrl,
    '/oid4vci/token',
    form({
      grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
      'pre-authorized_code': offer.body.pre_authorized_code,
    }),
  );
  if (token.status !== 200) throw new Error(`token: ${JSON.stringify(token.body)}`);
  const nonce = (await exchange(baseUrl, '/oid4vci/nonce', { method: 'POST' })).body.c_nonce as string;
  const proof = await new SignJWT({ nonce })
    .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: holder.jwk })
    .setAudience(audience)
    .setIssuedAt(nowS)
    .sign(holder.privateKey);
  const credential = await exchange(
    baseUrl,
    '/oid4vci/credential',
    json(
      { credential_configuration_id: configurationId, proofs: { jwt: [proof] } },
      { authorization: `Bearer ${token.body.access_token}` },
    ),
  );
  if (credential.status !== 200) throw new Error(`credential: ${JSON.stringify(credential.body)}`);
  return { credential: credential.body.credentials[0].credential, offerId: offer.body.offer_id };
}

/** What a presentation answers: the request as created (client_id, nonce, response_uri) and, for .jwt, the verifier's key. */
export interface Answering {
  clientId: string;
  nonce: string;
  responseUri: string;
  encryptionJwk?: JWK;
  nowS: number;
}

const signer = (holder: HolderKey) => ({
  alg: 'ES256' as const,
  privateKey: holder.privateKey,
  kid: undefined as unknown as string,
  publicKey: holder.publicKey,
  publicJwk: holder.jwk,
});

/** An SD-JWT VC presentation disclosing `claims` with a KB-JWT for this request (plus any `kbClaims`). */
export const presentSdJwt = (
  sdJwt: string,
  holder: HolderKey,
  to: Answering,
  claims: string[] | 'all' = 'all',
  kbClaims?: Record<string, unknown>,
) =>
  presentSdJwtVc(sdJwt, {
    disclose: claims === 'all' ? 'all' : claims.map((c) => [c]),
    keyBinding: {
      holder: signer(holder) as never,
      aud: to.clientId,
      nonce: to.nonce,
      now: to.nowS,
      ...(kbClaims ? { claims: kbClaims } : {}),
    },
  });

/** An mdoc DeviceResponse (base64url) releasing `elements` of the mDL namespace, signed by the device key over our handover. */
export async function presentMdoc(
  issuerSigned: string,
  holder: HolderKey,
  to: Answering,
  elements: string[] | 'all' = 'all',
): Promise<string> {
  const sessionTranscript = await oid4vpSessionTranscript({
    clientId: to.clientId,
    nonce: to.nonce,
    responseUri: to.responseUri,
    ...(to.encryptionJwk ? { encryptionKey: to.encryptionJwk } : {}),
  });
  const response = createDeviceResponse({
    issuerSigned: parseIssuerSigned(Buffer.from(issuerSigned, 'base64url')),
    disclose: elements === 'all' ? 'all' : { 'org.iso.18013.5.1': elements },
    deviceKey: { privateKey: holder.privateKey },
    sessionTranscript,
  });
  return Buffer.from(response).toString('base64url');
}

/** A VP JWT (jwt_vc_json) by the holder's did:jwk. */
export const presentJwtVc = (vc: string, holder: HolderKey, to: Answering) => {
  const did = didJwkFromJwk(holder.jwk);
  return createJwtVp({
    holder: { ...signer(holder), kid: `${did}#0`, did } as never,
    credentials: [vc],
    aud: to.clientId,
    nonce: to.nonce,
    now: to.nowS,
  });
};

/** A Data Integrity VP (ldp_vc) by the holder's did:jwk. */
export const presentLdpVc = (vc: Record<string, unknown>, holder: HolderKey, to: Answering) => {
  const did = didJwkFromJwk(holder.jwk);
  return createLdpVp({
    credentials: [vc as never],
    holder: did,
    signer: { cryptosuite: 'ecdsa-rdfc-2019', privateKey: holder.privateKey, verificationMethod: `${did}#0` } as never,
    challenge: to.nonce,
    domain: to.clientId,
    now: to.nowS,
  });
};
