import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { Decoder, Encoder, Tag } from 'cbor-x';
import { createPublicKey, verify } from 'node:crypto';
import { gunzipSync, inflateSync } from 'node:zlib';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueWithOffer, type HolderKey, asCreator } from '../../support/holder.ts';

// Issue 34: our Status List Tokens read by unmodified peers: @sd-jwt/jwt-status-list for the JWT, cbor-x
// and node:crypto for the CWT's COSE_Sign1, gunzip for the W3C bitstring.
let server: TestServer;
let holder: HolderKey;
/** Credentials issued, each with its offer, index, list and the status set. */
const issued: Array<{ offerId: string; idx: number; uri: string; value: number; vc: string }> = [];
const VALUES: Record<string, number> = { valid: 0, revoked: 1, suspended: 2 };
beforeAll(async () => {
  server = await startMainServer();
  holder = await holderKey();
  const nowS = Math.floor(server.clock.now() / 1000);
  for (const status of ['valid', 'revoked', 'suspended', 'revoked', 'suspended', 'valid', 'revoked']) {
    const { credential, offerId } = await issueWithOffer(server.url, 'UniversityDegreeCredentialJWT', holder, nowS);
    if (status !== 'valid')
      expect(
        (
          await exchange(
            server.url,
            `/oid4vci/offers/${offerId}/credentials/0/status`,
            json({ status }, asCreator(offerId)),
          )
        ).status,
      ).toBe(200);
    const doc = (await exchange(server.url, `/oid4vci/offers/${offerId}/status`, { method: 'GET' })).body;
    const { uri, idx } = doc.credentials[0].status_list;
    issued.push({ offerId, idx, uri, value: VALUES[status], vc: credential as string });
  }
});
afterAll(async () => {
  await server.close();
});

const fetchList = (uri: string, accept?: string) =>
  fetch(`${server.url}${new URL(uri).pathname}`, { headers: accept ? { accept } : {} });

describe('status lists read by peers', () => {
  it('@sd-jwt/jwt-status-list decodes the JWT and reads the value we set at each index', async () => {
    const jwt = await (await fetchList(issued[0].uri)).text();
    const list = getListFromStatusListJWT(jwt);
    expect(list.getBitsPerStatus()).toBe(2);
    expect(list.statusList.length).toBe(131_072);
    for (const c of issued) expect(list.getStatus(c.idx), `index ${c.idx}`).toBe(c.value);
    const others = list.statusList.filter((v, i) => v !== 0 && !issued.some((c) => c.idx === i));
    expect(others).toEqual([]);
  });

  it('the CWT is a tagged COSE_Sign1 whose ES256 signature verifies with the issuer key, carrying the same list', async () => {
    const response = await fetchList(issued[0].uri, 'application/statuslist+cwt');
    expect(response.headers.get('content-type')).toBe('application/statuslist+cwt');
    const decoded = new Decoder({ mapsAsObjects: false }).decode(Buffer.from(await response.arrayBuffer()));
    expect(decoded).toBeInstanceOf(Tag);
    expect(decoded.tag).toBe(18);
    const [protectedBytes, , payload, signature] = decoded.value as [Uint8Array, unknown, Uint8Array, Uint8Array];
    const header = new Decoder({ mapsAsObjects: false }).decode(protectedBytes) as Map<number, unknown>;
    expect(header.get(1)).toBe(-7);
    expect(header.get(16)).toBe('application/statuslist+cwt');
    const kid = Buffer.from(header.get(4) as Uint8Array).toString('utf8');
    const jwks = (await (await fetch(`${server.url}/oid4vci/.well-known/jwks.json`)).json()) as {
      keys: Array<{ kid: string }>;
    };
    const jwk = jwks.keys.find((k) => k.kid === kid);
    expect(jwk).toBeDefined();
    const toBeSigned = new Encoder({ mapsAsObjects: false, useRecords: false, tagUint8Array: false }).encode([
      'Signature1',
      protectedBytes,
      new Uint8Array(),
      payload,
    ]);
    const key = createPublicKey({ key: jwk as never, format: 'jwk' });
    expect(verify('sha256', toBeSigned, { key, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
    const claims = new Decoder({ mapsAsObjects: false }).decode(payload) as Map<number, any>;
    expect(claims.get(2)).toBe(issued[0].uri);
    expect(claims.get(65534)).toBe(300);
    expect(claims.get(4)).toBeGreaterThan(claims.get(6));
    const statusList = claims.get(65533) as Map<string, any>;
    expect(statusList.get('bits')).toBe(2);
    const bytes = inflateSync(statusList.get('lst'));
    for (const c of issued) expect((bytes[c.idx >> 2] >> ((c.idx & 3) * 2)) & 3, `index ${c.idx}`).toBe(c.value);
  });

  it('the W3C lists set the bit of each revoked or suspended credential, leftmost bit first', async () => {
    for (const purpose of ['revocation', 'suspension'] as const) {
      const entry = (
        decodeJwt(issued[0].vc).vc as {
          credentialStatus: Array<{ statusPurpose: string; statusListCredential: string }>;
        }
      ).credentialStatus.find((e) => e.statusPurpose === purpose)!;
      const listVc = decodeJwt(await (await fetchList(entry.statusListCredential)).text()).vc as any;
      const bits = gunzipSync(Buffer.from(listVc.credentialSubject.encodedList.slice(1), 'base64url'));
      expect(bits.length * 8).toBe(131_072);
      const wanted = purpose === 'revocation' ? 1 : 2;
      for (const c of issued)
        expect((bits[c.idx >> 3] >> (7 - (c.idx & 7))) & 1, `${purpose} ${c.idx}`).toBe(c.value === wanted ? 1 : 0);
    }
  });
});
