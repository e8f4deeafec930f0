import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPaletteIndex } from '../../../adapters/palette/build-index.ts';
import { paletteArtefacts } from '../../../services/palette/source.ts';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { nodeFiles } from '../../../adapters/files/node-files.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const query = async (body: unknown) => {
  const res = await fetch(`${server.url}/api/palette/query`, json(body));
  return { status: res.status, body: (await res.json()) as any };
};

describe('palette index', () => {
  it('the same content builds byte-identical files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-palette-'));
    try {
      const artefacts = paletteArtefacts(nodeFiles, ROOT, () => false);
      buildPaletteIndex(artefacts, join(dir, 'a.db'));
      buildPaletteIndex(
        paletteArtefacts(nodeFiles, ROOT, () => false),
        join(dir, 'b.db'),
      );
      expect(readFileSync(join(dir, 'a.db')).equals(readFileSync(join(dir, 'b.db')))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails the build naming the file of an explainer whose id is not in the registry, or of an unknown front matter field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-content-'));
    try {
      cpSync(join(ROOT, 'content'), join(dir, 'content'), { recursive: true });
      cpSync(join(ROOT, 'conformance'), join(dir, 'conformance'), { recursive: true });
      const bad = join(dir, 'content/requirements/rfc7523/rfc7523-999.md');
      writeFileSync(bad, '---\nid: rfc7523-999\nspec: rfc7523\n---\nNo such requirement.\n');
      expect(() => paletteArtefacts(nodeFiles, dir, () => false)).toThrow(
        `${bad}: requirement explainer "rfc7523-999" is not in conformance/registry.yaml`,
      );
      rmSync(bad);
      const concept = join(dir, 'content/concepts/pkce.md');
      writeFileSync(
        concept,
        readFileSync(concept, 'utf8').replace('protocol: oauth2', 'protocol: oauth2\ncolour: blue'),
      );
      expect(() => paletteArtefacts(nodeFiles, dir, () => false)).toThrow(
        `${concept}: unknown front matter field "colour"`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is reported by /health and /api when loaded', async () => {
    const health = (await (await fetch(`${server.url}/health`)).json()) as any;
    expect(health.palette).toMatchObject({ loaded: true });
    expect(health.palette.artefacts).toBeGreaterThan(50);
    expect(health.palette.index_version).toMatch(/^[0-9a-f]{16}$/);
    const api = (await (await fetch(`${server.url}/api`)).json()) as any;
    expect(api.endpoints.palette).toBe(`${server.url}/api/palette/query`);
  });
});

describe('POST /api/palette/query', () => {
  it('a malformed query names the fix (the field is q)', async () => {
    const res = await query({ query: 'pkce' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.error_description).toContain('{"q": "<words>"}');
  });

  it('finds aliases, prefixes and protocol names with the expected artefact on top', async () => {
    const top = async (q: string) => (await query({ q, limit: 5 })).body.results.map((r: any) => r.id);
    expect((await top('pkce')).slice(0, 3)).toContain('concept:pkce');
    expect((await top('device code')).slice(0, 3)).toContain('concept:device-code');
    expect((await top('vc')).slice(0, 2)).toContain('concept:verifiable-credential');
    expect((await top('mdl')).slice(0, 2)).toContain('concept:mdl');
    expect((await top('openid'))[0]).toBe('protocol:oidc');
    expect(await top('refr')).toContain('flow:oauth2/refresh-token');
    const { body } = await query({ q: 'dpop', scope: 'flow' });
    expect(body.results.every((r: any) => r.type === 'flow')).toBe(true);
    expect(body.results[0]).toMatchObject({
      id: 'flow:oauth2/dpop-bound-token',
      runnable: true,
      href: '/protocol/oauth2/flow/dpop-bound-token',
    });
    expect(body.results[0].snippet).toContain('<mark>');
    expect(body).toHaveProperty('elapsed_micros');
    expect(body.total_candidates).toBeGreaterThanOrEqual(body.results.length);
  });

  it('never fails on hostile input (fuzzed); bad bodies get the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60 }), async (q) => {
        const r = await query({ q });
        expect(r.status).toBe(200);
        expect(Array.isArray(r.body.results)).toBe(true);
      }),
      { numRuns: 200 },
    );
    for (const body of [{}, { q: 5 }, { q: 'x', limit: 51 }, { q: 'x', scope: 'everything' }]) {
      const r = await query(body);
      expect([r.status, r.body.error]).toEqual([400, 'invalid_request']);
    }
  });
});

describe('production start', () => {
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'scripts/start.ts', 'main'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        PORT: '0',
        BASE_URL: 'http://127.0.0.1:1',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'portico-prod-')),
        ...env,
      },
    });
  it('refuses to start without SHOWCASE_PALETTE_DB, or with a file that cannot be opened', () => {
    const unset = run({ SHOWCASE_ENV: 'production' });
    expect(unset.status).toBe(1);
    expect(unset.stderr).toContain('SHOWCASE_ENV=production needs SHOWCASE_PALETTE_DB');
    const missing = run({ SHOWCASE_ENV: 'production', SHOWCASE_PALETTE_DB: '/nonexistent/palette.db' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('cannot open the palette index /nonexistent/palette.db');
  });
});
