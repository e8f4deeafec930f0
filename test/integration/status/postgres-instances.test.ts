import { decodeJwt } from 'jose';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { holderKey, issueWithOffer, asCreator } from '../../support/holder.ts';
import { exchange, json, type TestServer } from '../../support/main-server.ts';
import { useTwoInstancesOnPostgres } from '../../support/postgres-instances.ts';
import { postgresAvailable } from '../../support/postgres.ts';

// Issue 34: two instances on one PostgreSQL never hand out one status index twice, and a change made at
// one instance is in the other's served list on its next read.
const instances = useTwoInstancesOnPostgres();

/** The list's bytes as one instance serves it now. */
async function servedBytes(instance: TestServer, listId: string) {
  const token = await (await fetch(`${instance.url}/oid4vci/status-lists/${listId}`)).text();
  return inflateSync(Buffer.from((decodeJwt(token).status_list as { lst: string }).lst, 'base64url'));
}
const valueAt = (bytes: Buffer, idx: number) => (bytes[idx >> 2] >> ((idx & 3) * 2)) & 3;

describe.skipIf(!postgresAvailable)('credential status on several instances', () => {
  it('allocates distinct indices under concurrent issuance on both, and both serve a change at once', async () => {
    const holder = await holderKey();
    const [a, b] = instances;
    const issueAt = (instance: TestServer) =>
      issueWithOffer(instance.url, 'UniversityDegreeCredential', holder, Math.floor(instance.clock.now() / 1000));
    const issued = await Promise.all([
      ...Array.from({ length: 6 }, () => issueAt(a)),
      ...Array.from({ length: 6 }, () => issueAt(b)),
    ]);
    const slots = [];
    for (const { offerId } of issued) {
      const doc = (await exchange(a.url, `/oid4vci/offers/${offerId}/status`, { method: 'GET' })).body;
      const { uri, idx } = doc.credentials[0].status_list;
      slots.push({ offerId, listId: String(uri).split('/').pop()!, idx: idx as number });
    }
    expect(new Set(slots.map((s) => `${s.listId}#${s.idx}`)).size).toBe(12);
    expect(new Set(slots.map((s) => s.listId)).size).toBe(1);

    const [first, second] = slots;
    // Changed at b (first issued by a), read at both straight after.
    for (const [at, slot, status, value] of [
      [b, first, 'revoked', 1],
      [a, second, 'suspended', 2],
      [b, second, 'valid', 0],
    ] as const) {
      expect(
        (
          await exchange(
            at.url,
            `/oid4vci/offers/${slot.offerId}/credentials/0/status`,
            json({ status }, asCreator(slot.offerId)),
          )
        ).status,
      ).toBe(200);
      const [fromA, fromB] = await Promise.all([servedBytes(a, slot.listId), servedBytes(b, slot.listId)]);
      expect(valueAt(fromA, slot.idx)).toBe(value);
      expect(fromA.equals(fromB)).toBe(true);
    }
    // Revocation is final whichever instance is asked.
    expect(
      (
        await exchange(
          a.url,
          `/oid4vci/offers/${first.offerId}/credentials/0/status`,
          json({ status: 'valid' }, asCreator(first.offerId)),
        )
      ).status,
    ).toBe(409);
  });
});
