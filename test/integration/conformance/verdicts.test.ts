import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRegistry, type Report } from '../../../services/conformance/registry.ts';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { nodeFiles } from '../../../adapters/files/node-files.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const registry = loadRegistry(nodeFiles, join(ROOT, 'conformance/registry.yaml'));
const dir = mkdtempSync(join(tmpdir(), 'portico-reports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function reportFile(
  name: string,
  overrides: Partial<Report> = {},
  verdictFor: (id: string) => 'PASS' | 'FAIL' = () => 'PASS',
): string {
  const report: Report = {
    schema_version: 1,
    commit: 'test-commit',
    generated_at: '2026-11-22T00:00:00Z',
    registry_digest: registry.digest,
    requirements: registry.requirements.map((r) => ({
      id: r.id,
      verdict: verdictFor(r.id),
      tests: r.tests.map((t) => ({ ...t, line: 10, verdict: verdictFor(r.id) })),
    })),
    ...overrides,
  };
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(report));
  return file;
}

async function withServer(env: Record<string, string>, fn: (s: TestServer) => Promise<void>) {
  const server = await startMainServer({ env: { REPOSITORY_URL: 'https://git.example/portico', ...env } });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}
const get = (s: TestServer, path: string, accept = 'text/html') => fetch(s.url + path, { headers: { accept } });

describe('conformance verdicts and indexing', () => {
  it('lists specs with requirement counts; unknown spec or requirement is 404', async () => {
    await withServer({}, async (s) => {
      const { specs } = (await (await get(s, '/api/conformance/specs')).json()) as any;
      expect(specs.find((x: any) => x.id === 'rfc7523')).toMatchObject({
        requirement_count: registry.requirements.filter((r) => r.spec === 'rfc7523').length,
        indexable: false,
      });
      // Specs served by an extension that is off are not listed (decisions §11).
      const offSpecs = new Set(registry.specs.filter((x) => x.extension).map((x) => x.id));
      expect(offSpecs).toEqual(new Set(['rfc7591', 'rfc7592']));
      // So are single requirements of an extension (SAML SP registration is DYNAMIC_CLIENTS).
      expect(registry.requirements.filter((r) => r.extension).map((r) => r.id)).toEqual(['saml-metadata-003']);
      expect(specs.reduce((n: number, x: any) => n + x.requirement_count, 0)).toBe(
        registry.requirements.filter((r) => !offSpecs.has(r.spec) && !r.extension).length,
      );
      expect((await get(s, '/api/conformance/specs/nope')).status).toBe(404);
      expect((await get(s, '/api/conformance/specs/rfc7523/requirements/rfc6749-001')).status).toBe(404);
    });
  });

  it('without a report: exactly "Not evaluated for this build", noindex, nothing in the sitemap', async () => {
    await withServer({ CONFORMANCE_REPORT: join(dir, 'absent.json') }, async (s) => {
      const res = await get(s, '/spec/rfc7523/rfc7523-003');
      expect(res.headers.get('x-robots-tag')).toBe('noindex');
      const html = await res.text();
      expect(html).toContain('<meta name="robots" content="noindex">');
      expect(html).toContain('Not evaluated for this build');
      // The page says how a build gets its verdicts, and shows the tests as not run rather than missing.
      expect(html).toContain('<code>npm test</code>');
      expect(html).not.toContain('MISSING_TEST');
      expect(html).toContain('NOT_RUN');
      expect(await (await get(s, '/sitemap.xml')).text()).not.toContain('/spec/');
      const index = await (await get(s, '/spec')).text();
      expect(index).toContain('<h1>Conformance</h1>');
      expect(index).toContain('href="/spec/rfc7523"');
      expect(index).toContain('<code>npm test</code>');
      expect(index).toContain('<a href="/spec">Conformance</a>'); // reachable from the navigation
    });
  });

  it('a valid report of another commit shows no verdict', async () => {
    await withServer({ CONFORMANCE_REPORT: reportFile('other', { commit: 'some-other-commit' }) }, async (s) => {
      const r = (await (await get(s, '/api/conformance/specs/rfc7523/requirements/rfc7523-003')).json()) as any;
      expect(r.verdict).toBe('Not evaluated for this build');
      expect(r.indexable).toBe(false);
      expect(await (await get(s, '/spec/rfc7523/rfc7523-003', 'text/markdown')).text()).toContain(
        'Not evaluated for this build',
      );
    });
  });

  it('a valid report of this commit shows self-test verdicts with links at the commit; pages with explainers become indexable', async () => {
    await withServer({ CONFORMANCE_REPORT: reportFile('good') }, async (s) => {
      const r = (await (await get(s, '/api/conformance/specs/rfc7523/requirements/rfc7523-003')).json()) as any;
      expect(r).toMatchObject({ verdict: 'PASS', indexable: true });
      expect(r.verdict_note).toMatch(/not a certification/);
      expect(r.test_results[0].url).toBe(
        'https://git.example/portico/blob/test-commit/test/integration/conformance/requirements.test.ts#L10',
      );
      expect(r.implementation_links[0].url).toBe('https://git.example/portico/blob/test-commit/machines/agent.ts');
      const page = await get(s, '/spec/rfc7523/rfc7523-003');
      expect(page.headers.get('x-robots-tag')).toBeNull();
      expect(await page.text()).toContain('Self-test verdict: PASS');
      // No explainer: still noindex.
      expect((await get(s, '/spec/rfc7523/rfc7523-001')).headers.get('x-robots-tag')).toBe('noindex');
      const sitemap = await (await get(s, '/sitemap.xml')).text();
      expect(sitemap).toContain(`${s.url}/spec/rfc7523/rfc7523-003`);
      expect(sitemap).not.toContain('/spec/rfc7523/rfc7523-001<');
      expect(await (await get(s, '/llms.txt')).text()).toContain(`${s.url}/spec/rfc7523/rfc7523-003`);
    });
  });

  it('one MUST-family FAIL anywhere makes every page noindex', async () => {
    await withServer(
      { CONFORMANCE_REPORT: reportFile('must-fail', {}, (id) => (id === 'rfc6749-001' ? 'FAIL' : 'PASS')) },
      async (s) => {
        const r = (await (await get(s, '/api/conformance/specs/rfc7523/requirements/rfc7523-003')).json()) as any;
        expect(r.verdict).toBe('PASS');
        expect(r.indexable).toBe(false);
        expect(await (await get(s, '/sitemap.xml')).text()).not.toContain('/spec/');
      },
    );
  });

  it('a report made from another registry is not valid', async () => {
    await withServer({ CONFORMANCE_REPORT: reportFile('foreign', { registry_digest: 'deadbeef' }) }, async (s) => {
      const r = (await (await get(s, '/api/conformance/specs/rfc7523/requirements/rfc7523-003')).json()) as any;
      expect(r.verdict).toBe('Not evaluated for this build');
    });
  });
});
