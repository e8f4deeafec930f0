import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asCreator, holderKey, issueWithOffer } from '../../support/holder.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 45 items 13 and 29: the looking glass page decodes status lists (JWT, CWT as base64url or hex, W3C),
// shows a credential's status verdict beside its validity, and names where its keys came from.
let server: TestServer;
let offerId: string;
let credential: string;
let listUri: string;
let idx: number;
const nowS = () => Math.floor(server.clock.now() / 1000);
beforeAll(async () => {
  server = await startMainServer();
  const issued = await issueWithOffer(server.url, 'UniversityDegreeCredential', await holderKey(), nowS());
  offerId = issued.offerId;
  credential = issued.credential as string;
  const payload = JSON.parse(Buffer.from(credential.split('.')[1]!, 'base64url').toString());
  ({ uri: listUri, idx } = payload.status.status_list);
});
afterAll(() => server.close());

/** The page's form post, answered as markdown (its twin) so the test reads text. */
const postPage = async (fields: Record<string, string>) => {
  const res = await fetch(`${server.url}/looking-glass`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/markdown' },
    body: new URLSearchParams(fields).toString(),
  });
  expect(res.status).toBe(200);
  return res.text();
};
const revoke = () =>
  exchange(
    server.url,
    `/oid4vci/offers/${offerId}/credentials/0/status`,
    json({ status: 'revoked' }, asCreator(offerId)),
  );

describe('the looking glass page and status lists', () => {
  it('offers a status list form on the page, HTML and markdown', async () => {
    const html = await (await fetch(`${server.url}/looking-glass`)).text();
    expect(html).toContain('name="status_list"');
    expect(html).toContain('name="idx"');
  });

  it('decodes a pasted Status List Token (JWT, CWT base64url and hex) with an index: bits, size, counts, the value', async () => {
    expect((await revoke()).status).toBe(200);
    const jwt = await (await fetch(listUri, { headers: { accept: 'application/statuslist+jwt' } })).text();
    const cwt = Buffer.from(
      await (await fetch(listUri, { headers: { accept: 'application/statuslist+cwt' } })).arrayBuffer(),
    );
    for (const pasted of [jwt, cwt.toString('base64url'), cwt.toString('hex')]) {
      const page = await postPage({ status_list: pasted, idx: String(idx) });
      expect(page).toContain('## Status list');
      expect(page).toMatch(/Signature: verified/);
      expect(page).toContain(`Index ${idx}: **INVALID (1)**`);
      expect(page).toMatch(/\| Entries \| 131072 \|/);
      expect(page).toMatch(/\| Bits per entry \| 2 \|/);
      expect(page).toMatch(/\| INVALID \| [1-9][0-9]* \|/);
      expect(page).toContain(listUri);
    }
    // A W3C BitstringStatusListCredential.
    const w3c = await (
      await fetch(listUri.replace('/status-lists/', '/status-lists/w3c/revocation/'), {
        headers: { accept: 'application/vc+jwt' },
      })
    ).text();
    const page = await postPage({ status_list: w3c, idx: String(idx) });
    expect(page).toContain('BitstringStatusListCredential');
    expect(page).toContain(`Index ${idx}: **`);
    // A status list pasted in the JWT field gets the same view, not the generic claims table.
    const asToken = await postPage({ token: jwt });
    expect(asToken).toContain('## Status list');
    expect(asToken).not.toContain('| Claim | Value | Meaning |');
    // Bad input is said on the page, never a 500.
    expect(await postPage({ status_list: 'not a list at all!' })).toMatch(/not a status list/);
    expect(await postPage({ status_list: jwt, idx: 'x' })).toMatch(/not a whole number/);
  });

  it('a revoked credential shows its status verdict beside its validity, and names the keys it was checked with', async () => {
    const page = await postPage({ credential });
    expect(page).toMatch(/Validity: \*\*valid\*\* · Status: \*\*revoked\*\*/);
    expect(page).toContain("Issuer signature verified with this origin's issuer keys");
    expect(page).not.toContain('the supplied JWKS');
  });
});
