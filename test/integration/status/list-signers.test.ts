import { ES256, digest } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { decodeProtectedHeader, exportJWK, importX509, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCbor, Tag } from '../../../services/credentials/mdoc/cbor.ts';
import { readStatusListCwt } from '../../../services/credentials/status-list/token.ts';
import { verifyStatusListCwt } from '../../../services/credentials/status-list/verify-token.ts';
import { validateX5c } from '../../../services/credentials/x509/x5c.ts';
import { asCreator, holderKey, issueWithOffer } from '../../support/holder.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 45 item 11: a status list is signed by the key that signs the credentials pointing at it, and
// carries the same trust material, so a verifier that trusts a credential verifies its list with that trust.
type Json = Record<string, any>;
let server: TestServer;
let issuer: string;
beforeAll(async () => {
  server = await startMainServer();
  issuer = `${server.url}/oid4vci`;
});
afterAll(() => server.close());

const nowS = () => Math.floor(server.clock.now() / 1000);
const leafJwk = async (x5c: string[]) =>
  exportJWK(await importX509(`-----BEGIN CERTIFICATE-----\n${x5c[0]}\n-----END CERTIFICATE-----`, 'ES256'));

/** @sd-jwt/sd-jwt-vc as a verifier configures it by default: the credential's key verifies its status list too. */
const verifierTrusting = async (jwk: JWK) =>
  new SDJwtVcInstance({ verifier: await ES256.getVerifier(jwk), hasher: digest, hashAlg: 'sha-256' });

const revoke = (offerId: string) =>
  exchange(
    server.url,
    `/oid4vci/offers/${offerId}/credentials/0/status`,
    json({ status: 'revoked' }, asCreator(offerId)),
  );

describe('status lists signed like their credentials', () => {
  it("an SD-JWT VC signed by the issuer's key (kid): @sd-jwt/sd-jwt-vc's default verify() checks its list with that key", async () => {
    const holder = await holderKey();
    const { credential, offerId } = await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS());
    const header = decodeProtectedHeader(credential as string);
    const jwks = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const key = jwks.keys.find((k) => k.kid === header.kid)!;
    const peer = await verifierTrusting(key);
    await expect(peer.verify(credential as string)).resolves.toMatchObject({ payload: { iss: issuer } });
    expect((await revoke(offerId)).status).toBe(200);
    await expect(peer.verify(credential as string)).rejects.toThrow(/Status is not valid/);
  });

  it('an mdoc signed by the document signer: its CWT list carries the same certificate (x5chain) to the IACA', async () => {
    const holder = await holderKey();
    const { credential } = await issueWithOffer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS());
    const issuerSigned = decodeCbor(Buffer.from(credential as string, 'base64url')) as Map<string, any>;
    const issuerAuth = issuerSigned.get('issuerAuth') as [Uint8Array, Map<number, unknown>, Uint8Array, Uint8Array];
    const x5chain = issuerAuth[1].get(33) as Uint8Array;
    const mso = decodeCbor((decodeCbor(issuerAuth[2]) as Tag).value as Uint8Array) as Map<string, any>;
    const uri = mso.get('status').get('status_list').get('uri') as string;
    const list = await fetch(uri, { headers: { accept: 'application/statuslist+cwt' } });
    expect(list.headers.get('content-type')).toBe('application/statuslist+cwt');
    const token = new Uint8Array(await list.arrayBuffer());
    const { x5c } = readStatusListCwt(token);
    expect(x5c).toEqual([Buffer.from(x5chain).toString('base64')]);
    const iaca = await (await fetch(`${issuer}/iaca.pem`)).text();
    const chain = await validateX5c(x5c!, { trustAnchors: [iaca], now: nowS() });
    expect(chain.valid).toBe(true);
    const verified = await verifyStatusListCwt(token, { uri, nowS: nowS(), keyFor: async () => leafJwk(x5c!) });
    expect(verified.valid, JSON.stringify(verified)).toBe(true);
    // Its JWT form too: x5c, and the document signer's kid of the issuer's jwks_uri.
    const jwt = await (await fetch(uri, { headers: { accept: 'application/statuslist+jwt' } })).text();
    expect(decodeProtectedHeader(jwt)).toMatchObject({ kid: 'document-signer', x5c });
  });

  it("lists of the issuer's key and of the document signer are never shared", async () => {
    const holder = await holderKey();
    const uriOf = async (configuration: string) => {
      const { credential } = await issueWithOffer(server.url, configuration, holder, nowS());
      const payload = JSON.parse(Buffer.from((credential as string).split('.')[1]!, 'base64url').toString()) as Json;
      return payload.status.status_list.uri as string;
    };
    const byKey = await uriOf('UniversityDegreeCredential');
    const listJwt = await (await fetch(byKey, { headers: { accept: 'application/statuslist+jwt' } })).text();
    expect(decodeProtectedHeader(listJwt).x5c).toBeUndefined();
    expect(decodeProtectedHeader(listJwt).kid).not.toBe('document-signer');
  });
});
