import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Ajv as AjvType } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 31: a run as HAR 1.2 (checked by a schema validator against the HAR schema), and two runs diffed.
const ROOT = new URL('../../../', import.meta.url).pathname;
const require = createRequire(import.meta.url);
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const get = (path: string) => exchange(server.url, path, {});
const run = async (flow: string, options: Record<string, string> = {}) => {
  const response = await exchange(server.url, `/api/protocols/oauth2/demo/${flow}`, json(options));
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.run_id as string;
};
/** The CLI in a child process, awaited: the server it reads lives in this process, so the loop must keep turning. */
const replay = (...args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });

function harValidator() {
  const schemas = require('har-schema') as Record<string, object>;
  // The HAR schema is draft-06: Ajv with that meta-schema and the standard formats (date-time, ipv4, ipv6).
  const Ajv = (require('ajv') as { default: typeof AjvType }).default;
  const addFormats = (require('ajv-formats') as { default: (ajv: AjvType) => void }).default;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
  addFormats(ajv);
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  return ajv.getSchema('har.json#')!;
}

describe('GET /api/runs/{id}/har', () => {
  it('is a HAR 1.2 document valid against the HAR schema, one entry per captured exchange, redacted as the run is', async () => {
    const id = await run('authorization-code-pkce');
    const view = (await get(`/api/runs/${id}`)).body;
    const har = await get(`/api/runs/${id}/har`);
    expect(har.status).toBe(200);
    const validate = harValidator();
    expect(validate(har.body), JSON.stringify(validate.errors)).toBe(true);
    const { log } = har.body;
    expect(log).toMatchObject({ version: '1.2', creator: { name: 'Portico' } });
    expect(log.pages).toHaveLength(1);
    expect(log.entries).toHaveLength(view.exchanges.length);
    for (const [i, entry] of log.entries.entries()) {
      const captured = view.exchanges[i];
      expect(entry.pageref).toBe(log.pages[0].id);
      expect(entry.request).toMatchObject({ method: captured.request.method, url: captured.request.url });
      expect(entry.response.status).toBe(captured.response.status);
      expect(entry.time).toBe(captured.duration_ms);
    }
    const token = log.entries.find((e: any) => e.request.url.endsWith('/oauth2/token'));
    expect(token.request.postData.params.map((p: any) => p.name)).toContain('code_verifier');
    // Nothing the run page redacts comes back whole.
    const redacted = JSON.stringify(view).match(/\[redacted[^"\]]*\]/g) ?? [];
    expect(redacted.length).toBeGreaterThan(0);
    for (const marker of redacted) expect(JSON.stringify(har.body)).toContain(marker);
    expect((await get('/api/runs/unknown-run/har')).status).toBe(404);
  });
});

describe('diffing two runs', () => {
  it('two runs of one flow are the same up to volatile values; a changed scope differs on exactly that field', async () => {
    const a = await run('client-credentials');
    const b = await run('client-credentials');
    const c = await run('client-credentials', { scope: 'api:read api:write' });
    const same = (await get(`/api/runs/${a}/diff/${b}`)).body;
    expect(same.same, JSON.stringify(same.exchanges)).toBe(true);
    expect(same.first_divergence).toBeUndefined();
    expect(same.exchanges.every((x: any) => x.presence === 'both' && x.differences.length === 0)).toBe(true);
    expect(same.exchanges.flatMap((x: any) => x.volatile)).toContain('/response/body/access_token');

    const changed = (await get(`/api/runs/${a}/diff/${c}`)).body;
    expect(changed.same).toBe(false);
    const differing = changed.exchanges.flatMap((x: any) => x.differences.map((d: any) => d.pointer));
    expect(differing).toContain('/request/body/scope');
    expect(
      differing.every((p: string) => p.endsWith('/scope')),
      differing.join(' '),
    ).toBe(true);
    expect(
      changed.exchanges.flatMap((x: any) => x.differences).find((d: any) => d.pointer === '/request/body/scope'),
    ).toEqual({ pointer: '/request/body/scope', a: 'api:read', b: 'api:read api:write' });

    const self = (await get(`/api/runs/${a}/diff/${a}`)).body;
    expect(self.same).toBe(true);
    const other = (await get(`/api/runs/${a}/diff/${await run('refresh-token')}`)).body;
    expect(other).toMatchObject({ same_flow: false, same: false });
    expect((await get(`/api/runs/${a}/diff/nope`)).status).toBe(404);

    const cli = await replay('--diff', `run:${a}`, `run:${b}`, '--base', server.url);
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('same up to volatile values');
    const cliChanged = await replay('--diff', `run:${a}`, `run:${c}`, '--base', server.url);
    expect(cliChanged.status).toBe(1);
    expect(cliChanged.stdout).toContain('/request/body/scope: a "api:read", b "api:read api:write"');
    const dir = mkdtempSync(join(tmpdir(), 'portico-diff-'));
    const file = join(dir, 'a.json');
    writeFileSync(file, JSON.stringify((await get(`/api/streams/run:${a}/export`)).body));
    const fromFile = await replay('--diff', file, `${server.url}/runs/${b}`, '--json');
    expect(fromFile.status, fromFile.stderr).toBe(0);
    expect(JSON.parse(fromFile.stdout).same).toBe(true);
    expect((await replay('--diff', `run:${a}`)).status).toBe(2);
    expect((await replay('--diff', `run:${a}`, `run:${b}`)).stderr).toMatch(/--base/);
  });
});
