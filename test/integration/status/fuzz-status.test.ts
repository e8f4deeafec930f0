import fc from 'fast-check';
import { inflateSync } from 'node:zlib';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueWithOffer, asCreator } from '../../support/holder.ts';

// Issue 34: fuzzed status-change bodies, paths and media types never give a 5xx, answer only the contract's
// statuses with the error shape, and leave the credential's status and its list in agreement.
let server: TestServer;
let offerId: string;
beforeAll(async () => {
  server = await startMainServer();
  const holder = await holderKey();
  offerId = (
    await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, Math.floor(server.clock.now() / 1000))
  ).offerId;
});
afterAll(async () => {
  await server.close();
});

const VALUES: Record<string, number> = { valid: 0, revoked: 1, suspended: 2 };

describe('the status-change endpoint under fuzzed input', () => {
  it('answers 200, 400, 404, 409 or 415 with {error, error_description}, and the list follows the document', async () => {
    const status = fc.oneof(fc.constantFrom('valid', 'suspended', 'revoked', 'VALID', '', 'revoke'), fc.jsonValue());
    const body = fc.oneof(
      fc.record({ status }, { requiredKeys: [] }).map((v) => ({ type: 'application/json', text: JSON.stringify(v) })),
      fc.jsonValue({ maxDepth: 3 }).map((v) => ({ type: 'application/json', text: JSON.stringify(v) })),
      fc.string({ maxLength: 60 }).map((t) => ({ type: 'application/json', text: t })),
      fc.string({ maxLength: 60 }).map((t) => ({ type: 'text/plain', text: t })),
      fc
        .constantFrom('status=revoked', 'status=valid')
        .map((t) => ({ type: 'application/x-www-form-urlencoded', text: t })),
    );
    const n = fc.oneof(
      fc.constantFrom('0', '1', '00', '-1', '1e0', '999999999', '%00', '__proto__'),
      fc.string({ maxLength: 8 }),
    );
    await fc.assert(
      fc.asyncProperty(body, n, async (b, position) => {
        const response = await fetch(
          `${server.url}/oid4vci/offers/${offerId}/credentials/${encodeURIComponent(position || '0')}/status`,
          { method: 'POST', headers: { 'content-type': b.type, ...asCreator(offerId) }, body: b.text },
        );
        const answer = (await response.json()) as Record<string, unknown>;
        expect([200, 400, 404, 409, 415], `${response.status} ${JSON.stringify(answer)}`).toContain(response.status);
        if (response.status !== 200) {
          expect(typeof answer.error).toBe('string');
          expect(typeof answer.error_description).toBe('string');
        }
      }),
      { numRuns: 150 },
    );
    const doc = (await exchange(server.url, `/oid4vci/offers/${offerId}/status`, { method: 'GET' })).body;
    expect(doc.credentials).toHaveLength(1);
    const { status_list: reference, status: now } = doc.credentials[0];
    const token = await (await fetch(`${server.url}${new URL(reference.uri).pathname}`)).text();
    const bytes = inflateSync(Buffer.from((decodeJwt(token).status_list as { lst: string }).lst, 'base64url'));
    expect((bytes[reference.idx >> 2] >> ((reference.idx & 3) * 2)) & 3).toBe(VALUES[now]);
  });
});
