import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineForStream } from '../../../machines/index.ts';
import { exportDigest, type StreamExport } from '../../../services/streams/export.ts';
import { readExport, refold } from '../../../services/streams/import.ts';
import { machineVersion } from '../../../services/streams/machine-version.ts';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 31: one stream as a portable, digest-sealed export; read only by who may already read it; folded again anywhere.
const ROOT = new URL('../../../', import.meta.url).pathname;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startMainServer();
  dir = mkdtempSync(join(tmpdir(), 'portico-export-'));
});
afterAll(async () => {
  await server.close();
});

const get = (path: string, headers: Record<string, string> = {}) => exchange(server.url, path, { headers });
const replay = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', ...args], { cwd: ROOT, encoding: 'utf8' });
const run = async (flow: string, options: Record<string, string> = {}) => {
  const response = await exchange(server.url, `/api/protocols/oauth2/demo/${flow}`, json(options));
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.run_id as string;
};
const save = (name: string, value: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
};
const newAgentToken = async () => {
  const registered = await exchange(server.url, '/agentauth/identity', json({ type: 'anonymous' }));
  const token = await exchange(
    server.url,
    '/agentauth/token',
    form({ grant_type: JWT_BEARER, assertion: registered.body.identity_assertion }),
  );
  return { agentId: registered.body.agent_id as string, token: token.body.access_token as string };
};

describe('GET /api/streams/{stream_id}/export', () => {
  it('exports a run: each event with the state after it, the machine version and a digest over canonical JSON', async () => {
    const id = await run('client-credentials');
    const plain = await get(`/api/streams/run:${id}/export`);
    const encoded = await get(`/api/streams/run%3A${id}/export`);
    expect(plain.status).toBe(200);
    expect(encoded.body).toMatchObject({ stream: `run:${id}`, digest: plain.body.digest });
    const doc = plain.body as StreamExport;
    expect(doc).toMatchObject({
      format: 'portico-stream/1',
      stream: `run:${id}`,
      kind: 'run',
      machine: { id: 'flowRun', version: machineVersion(machineForStream('run:x')!) },
      final_state: 'succeeded',
    });
    expect(doc.machine.version).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(doc.events.map((e: any) => e.state)).toEqual([
      'running',
      ...doc.events.slice(1, -1).map(() => 'running'),
      'succeeded',
    ]);
    expect(doc.events[0]).toMatchObject({ version: 1, type: 'run.started' });
    expect(doc.digest).toBe(exportDigest(doc));
    expect(JSON.stringify(doc)).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,}/);
    const download = await get(`/api/streams/run:${id}/export?download=1`);
    // Issue 45 item 32: no colon in a download name (Windows refuses it).
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="run-${id}.portico.json"`);
  });

  it("reads an agent's stream only with that agent's token; anyone else hears 404", async () => {
    const one = await newAgentToken();
    const two = await newAgentToken();
    const own = await get(`/api/streams/agent:${one.agentId}/export`, { authorization: `Bearer ${one.token}` });
    expect(own.status).toBe(200);
    expect(own.body.events[0].type).toBe('agent.registered');
    expect(refold(readExport(own.body))).toMatchObject({ same_machine: true, final_state: own.body.final_state });
    expect(refold(readExport(own.body)).divergence).toBeUndefined();
    const callers: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${two.token}` },
      { authorization: 'Bearer nonsense' },
    ];
    for (const headers of callers) {
      const refused = await get(`/api/streams/agent:${one.agentId}/export`, headers);
      expect(refused.status).toBe(404);
      expect(refused.body.error).toBe('not_found');
    }
  });

  it('reads an issuance by its offer id, and a presentation only with its transaction_id', async () => {
    const offer = await exchange(
      server.url,
      '/oid4vci/offers',
      json({ credential_configuration_ids: ['UniversityDegreeCredential'] }),
    );
    expect(offer.status).toBe(201);
    const issuance = await get(`/api/streams/issuance:${offer.body.offer_id}/export`);
    expect(issuance.body).toMatchObject({ kind: 'issuance', final_state: 'offered' });
    expect(refold(readExport(issuance.body))).toMatchObject({ same_machine: true, final_state: 'offered' });
    const created = await exchange(server.url, '/oid4vp/request/create', json({}));
    expect(created.status).toBe(201);
    const stream = `presentation:${created.body.request_id}`;
    expect((await get(`/api/streams/${stream}/export`)).status).toBe(404);
    const guessed = `${created.body.request_id}.${'A'.repeat(22)}`;
    expect((await get(`/api/streams/${stream}/export?transaction_id=${guessed}`)).status).toBe(404);
    const read = await get(`/api/streams/${stream}/export?transaction_id=${created.body.transaction_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ kind: 'presentation', final_state: 'created' });
    expect(refold(readExport(read.body))).toMatchObject({ same_machine: true, final_state: 'created' });
    expect(JSON.stringify(read.body)).not.toContain(created.body.transaction_id);
  });

  it('answers other kinds, unknown and malformed streams 404 and over-long ids 414, in the error contract', async () => {
    const offer = await exchange(
      server.url,
      '/oid4vci/offers',
      json({ credential_configuration_ids: ['UniversityDegreeCredential'] }),
    );
    for (const stream of ['code:abc', 'once:abc', 'refresh:abc', 'run:unknown', `issuance:${'x'.repeat(30)}`, 'nokind'])
      expect((await get(`/api/streams/${stream}/export`)).status, stream).toBe(404);
    for (const malformed of ['run:a$b', 'run:', ':abc', 'RUN:abc'])
      expect((await get(`/api/streams/${encodeURIComponent(malformed)}/export`)).body.error, malformed).toBe(
        'not_found',
      );
    // Every parameter of the origin is at most 100 characters: longer is 414 in the error contract.
    const tooLong = await get(`/api/streams/run:${'a'.repeat(101)}/export`);
    expect(tooLong.status).toBe(414);
    expect(tooLong.body.error).toBe('invalid_request');
    expect((await get(`/api/streams/issuance:${offer.body.offer_id}/export?download=yes`)).status).toBe(400);
  });
});

describe('npm run replay -- --import', () => {
  it('folds an export to the recorded states; a changed byte is refused (2); a changed machine state diverges (1)', async () => {
    const id = await run('refresh-token');
    const doc = (await get(`/api/streams/run:${id}/export`)).body as StreamExport;
    const file = save('run.json', doc);
    const ok = replay('--import', file);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/run\.finished\s+-> "succeeded"/);
    expect(ok.stdout).toContain('folds to "succeeded", as recorded');
    const asJson = JSON.parse(replay('--import', file, '--json').stdout);
    expect(asJson.files[0]).toMatchObject({ stream: `run:${id}`, same_machine: true, final_state: 'succeeded' });

    const text = readFileSync(file, 'utf8');
    const at = text.indexOf('"run.started"') + 5;
    const tampered = save('tampered.json', `${text.slice(0, at)}${text[at] === 'x' ? 'y' : 'x'}${text.slice(at + 1)}`);
    const refused = replay('--import', tampered);
    expect(refused.status).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/digest mismatch/);

    // A file whose recorded states another machine produced: re-sealed, it is read, and the fold disagrees.
    const other = structuredClone(doc);
    other.events.at(-1)!.state = 'failed';
    other.digest = exportDigest(other);
    const diverged = replay('--import', save('diverged.json', other));
    expect(diverged.status).toBe(1);
    expect(diverged.stdout).toContain(`diverges at event ${doc.events.length}: recorded "failed", folded "succeeded"`);

    for (const [name, content, message] of [
      ['bad.json', '{"format":', /is not JSON/],
      ['format.json', JSON.stringify({ ...doc, format: 'portico-stream/9' }), /unknown format/],
    ] as const) {
      const outcome = replay('--import', save(name, content));
      expect(outcome.status).toBe(2);
      expect(outcome.stderr).toMatch(message);
    }
    const big = join(dir, 'big.json');
    writeFileSync(big, Buffer.alloc(16 * 1024 * 1024 + 1, 0x20));
    expect(replay('--import', big).stderr).toMatch(/over 16 MiB/);
  });

  // Issue 45 item 39: hostile files are refused in one line with exit 2, never a crash (exit 1).
  it('refuses hostile files in one line each, exit 2: deep nesting, huge numbers, __proto__ keys, bad events', async () => {
    const id = await run('client-credentials');
    const doc = (await get(`/api/streams/run:${id}/export`)).body as StreamExport;
    const sealed = (changed: StreamExport) => ({ ...changed, digest: exportDigest(changed) });
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const nested = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const deepData = JSON.stringify(doc).replace('"data":{', `"data":{"deep":${nested},`);
    const cases: Array<[string, string]> = [
      ['deep-array.json', deep],
      ['deep-data.json', deepData],
      ['huge-number.json', JSON.stringify(doc).replace(/"sequence":\d+/, '"sequence":1e999')],
      ['huge-data-number.json', JSON.stringify(doc).replace('"data":{', '"data":{"n":1e999,')],
      ['proto.json', JSON.stringify(doc).replace('"data":{', '"data":{"__proto__":{"polluted":true},')],
      ['bad-digest.json', JSON.stringify({ ...doc, digest: 42 })],
      ['unknown-stream.json', JSON.stringify(sealed({ ...doc, stream: 'nope:x' }))],
      ['not-an-object.json', '[1,2,3]'],
    ];
    for (const [name, content] of cases) {
      const outcome = replay('--import', save(name, content));
      expect([name, outcome.status]).toEqual([name, 2]);
      expect(outcome.stderr.trim().split('\n'), name).toHaveLength(1);
      expect(outcome.stderr, name).toContain(name);
      expect(outcome.stderr, name).not.toMatch(/\n\s+at /);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Garbage events, sealed again: read, folded, and reported as diverging from what they claim (1).
    const garbage = sealed({
      ...doc,
      events: [{ ...doc.events[0]!, type: 'run.finished', data: { status: { toString: 1 } } } as never],
    });
    const folded = replay('--import', save('event-garbage.json', garbage));
    expect([folded.status, folded.stderr]).toEqual([1, '']);
    expect(folded.stdout).toContain('diverges at event 1');
    // A "__proto__" member beside the sealed ones is an ordinary, ignored member: the export still folds.
    const extra = replay('--import', save('proto-top.json', JSON.stringify(doc).replace('{', '{"__proto__":{"x":1},')));
    expect([extra.status, extra.stderr]).toEqual([0, '']);
  });
});
