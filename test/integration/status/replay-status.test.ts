import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueWithOffer, asCreator } from '../../support/holder.ts';

// Issue 34: a status list is a projection of credential.status_changed events; `npm run replay` rebuilds it
// from the log alone, and the rebuild equals the list the issuer serves.
const ROOT = new URL('../../../', import.meta.url).pathname;
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const replay = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', join(server.dataDir, 'main.db'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });

describe('npm run replay -- --status-list', () => {
  it('rebuilds the served list from the events, and the read model agrees after a rebuild', async () => {
    const holder = await holderKey();
    const nowS = Math.floor(server.clock.now() / 1000);
    let uri = '';
    const changes = [['revoked'], ['suspended'], ['suspended', 'valid'], [], ['suspended', 'revoked']];
    for (const sequence of changes) {
      const { offerId } = await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS);
      for (const status of sequence)
        expect(
          (
            await exchange(
              server.url,
              `/oid4vci/offers/${offerId}/credentials/0/status`,
              json({ status }, asCreator(offerId)),
            )
          ).status,
        ).toBe(200);
      uri = (await exchange(server.url, `/oid4vci/offers/${offerId}/status`, { method: 'GET' })).body.credentials[0]
        .status_list.uri;
    }
    const listId = uri.split('/').pop()!;
    const served = async () => {
      const token = await (await fetch(`${server.url}/oid4vci/status-lists/${listId}`)).text();
      return inflateSync(Buffer.from((decodeJwt(token).status_list as { lst: string }).lst, 'base64url'));
    };
    const rebuilt = replay('--status-list', listId, '--json');
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    const report = JSON.parse(rebuilt.stdout);
    expect(report).toMatchObject({ list_id: listId, size: 131_072, bits: 2, changes: 6 });
    expect(report.counts).toMatchObject({ INVALID: 2, SUSPENDED: 1 });
    expect(inflateSync(Buffer.from(report.lst, 'base64url')).equals(await served())).toBe(true);

    // The read model itself, dropped and folded again from sequence 0, serves the same bytes.
    const before = await served();
    await server.main.ctx.projections.rebuild('credential_status');
    expect((await served()).equals(before)).toBe(true);

    expect(replay('--status-list', 'no-such-list').status).toBe(2);

    // The allocation records are streams like the others: folded by their machines, and exported.
    const all = JSON.parse(replay('--json', '--quiet').stdout);
    const records = all.streams.filter((r: any) => /^status-lists?:/.test(r.stream));
    expect(records.map((r: any) => r.stream)).toEqual(
      expect.arrayContaining(['status-lists:registry', `status-list:${listId}`]),
    );
    expect(records.filter((r: any) => r.verdict === 'no machine')).toEqual([]);
    const exported = await exchange(server.url, `/api/streams/status-list:${listId}/export`, { method: 'GET' });
    expect(exported.status).toBe(200);
    expect(exported.body.events[0].type).toBe('status_list.indices_reserved');
  });
});
