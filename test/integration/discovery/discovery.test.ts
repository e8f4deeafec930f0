import { createHash } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers });

describe('discovery documents', () => {
  it('API catalog is an RFC 9727 linkset', async () => {
    const res = await get('/.well-known/api-catalog');
    expect(res.headers.get('content-type')).toContain('application/linkset+json');
    const body = (await res.json()) as any;
    const api = body.linkset.find((l: any) => l.anchor === `${server.url}/api`);
    expect(api['service-desc'][0].href).toBe(`${server.url}/openapi.json`);
    expect(api.status[0].href).toBe(`${server.url}/health`);
  });

  it('every skill in the index is served with exactly its digest; the wallet skill points at the wallet origin', async () => {
    const index = (await (await get('/.well-known/agent-skills/index.json')).json()) as any;
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    expect(index.skills.map((s: any) => s.name).sort()).toEqual([
      'browse-protocol-catalog',
      'debug-a-run',
      'decode-token',
      'provision-with-scim',
      'register-agent',
      'run-protocol-flow',
      'sign-in-with-saml',
      'use-mcp',
      'use-shared-signals',
      'use-wallet-harness',
    ]);
    for (const skill of index.skills) {
      expect(skill.type).toBe('skill-md');
      const res = await fetch(skill.url);
      expect(res.headers.get('content-type')).toContain('text/markdown');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(skill.digest);
    }
    const wallet = await (await get('/.well-known/agent-skills/use-wallet-harness/SKILL.md')).text();
    expect(wallet).toContain(`${server.config.walletUrl}/llms.txt`);
    expect((await get('/.well-known/agent-skills/nope/SKILL.md')).status).toBe(404);
  });

  it('robots.txt carries Content-Signal in every crawl-allowed group; sitemap and llms.txt list pages but no conformance page without a valid report', async () => {
    const robots = await (await get('/robots.txt')).text();
    const groups = robots.split(/\n(?=User-agent:)/).filter((g) => g.includes('User-agent:'));
    expect(groups.length).toBeGreaterThan(0);
    for (const g of groups) expect(g).toContain('Content-Signal: search=yes, ai-input=yes, ai-train=no');
    const sitemap = await (await get('/sitemap.xml')).text();
    expect(sitemap).toContain(`<loc>${server.url}/protocol/oauth2</loc>`);
    expect(sitemap).not.toContain('/spec/');
    const llms = await (await get('/llms.txt')).text();
    expect(llms).toMatch(/^# Portico/);
    expect(llms).toContain(`${server.url}/auth.md`);
    expect(llms).not.toContain('/spec/');
  });

  it('documents carry ETags and answer 304 to a matching If-None-Match', async () => {
    for (const path of [
      '/.well-known/api-catalog',
      '/robots.txt',
      '/mcp/server-card',
      '/.well-known/ai-catalog.json',
      '/.well-known/openid-configuration',
      '/llms.txt',
    ]) {
      const first = await get(path);
      const etag = first.headers.get('etag')!;
      expect(etag, path).toMatch(/^"/);
      expect(first.headers.get('cache-control')).toContain('max-age');
      expect((await get(path, { 'if-none-match': etag })).status).toBe(304);
    }
  });

  it('the OpenAPI 3.1 document validates and contains every route of the main origin', async () => {
    const spec = (await (await get('/openapi.json')).json()) as any;
    expect(spec.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(spec);
    expect(result.valid, JSON.stringify(result.errors ?? null).slice(0, 500)).toBe(true);
    const documented = new Set(
      Object.entries(spec.paths).flatMap(([path, ops]: [string, any]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    // Every route fastify registered (bar HEAD twins) is in the contract.
    expect(server.main.routes.length).toBeGreaterThan(50);
    for (const r of server.main.routes) expect(documented.has(r), r).toBe(true);
    // Every operation says what success looks like (issue 14: no operation with only error responses).
    const withoutSuccess = Object.entries(spec.paths).flatMap(([path, ops]: [string, any]) =>
      Object.entries(ops)
        .filter(([, op]: [string, any]) => !Object.keys(op.responses ?? {}).some((c) => /^[23]/.test(c)))
        .map(([m]) => `${m.toUpperCase()} ${path}`),
    );
    expect(withoutSuccess).toEqual([]);
    expect(
      spec.paths['/oid4vp/request/{id}'].get.responses['200'].content['application/oauth-authz-req+jwt'],
    ).toBeDefined();
    for (const must of [
      'POST /agentauth/identity',
      'POST /agentauth/token',
      'POST /oauth2/token',
      'GET /oidc/userinfo',
      'POST /api/lookingglass/decode',
      'GET /api/protocols/{id}',
      'POST /mcp',
    ])
      expect(documented.has(must), must).toBe(true);
    const html = await get('/docs/api');
    expect(html.headers.get('content-type')).toContain('text/html');
    const text = await html.text();
    expect(text).toContain('POST /agentauth/identity');
    expect(text).toContain('<summary>Success response (200)</summary>'); // /docs/api shows what a call returns
    expect(text).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/);
  });
});

describe('pages', () => {
  const PAGES = [
    '/',
    '/protocol/oauth2',
    '/protocol/oauth2/flow/authorization-code-pkce',
    '/looking-glass',
    '/agentauth/claim',
    '/docs/api',
    '/no-such-page',
    '/search?q=dpop',
    '/spec/rfc7523',
    '/spec/rfc7523/rfc7523-003',
    '/callback?code=abc',
    '/oidc/logout',
  ];

  it('every page response carries the Link header of spec rule 2 and Vary: Accept', async () => {
    for (const path of PAGES) {
      const res = await get(path);
      const link = res.headers.get('link') ?? '';
      for (const rel of [
        'rel="api-catalog"',
        'rel="service-desc"',
        'rel="service-doc"',
        'rel="describedby"',
        'rel="alternate"; type="text/plain"',
        'title="wallet"',
        'rel="status"',
      ])
        expect(link, `${path} ${rel}`).toContain(rel);
      expect(res.headers.get('vary'), path).toMatch(/Accept/);
      if (res.headers.get('content-type')!.startsWith('text/html'))
        expect(await res.text()).toContain('<link rel="alternate" type="text/plain" href="/llms.txt">');
    }
  });

  it('serves the markdown twin of a page with the same headings and links', async () => {
    for (const path of [
      '/',
      '/protocol/oauth2',
      '/protocol/agentauth/flow/register-and-claim',
      '/looking-glass',
      '/agentauth/claim',
      '/search?q=pkce',
      '/spec/rfc7523',
      '/spec/rfc7523/rfc7523-003',
      '/callback?code=abc&state=xyz',
      '/no-such-page',
    ]) {
      const html = await (await get(path)).text();
      const mdRes = await get(path, { accept: 'text/markdown' });
      expect(mdRes.headers.get('content-type')).toContain('text/markdown');
      expect(mdRes.headers.get('x-markdown-tokens')).toBeNull();
      const md = await mdRes.text();
      const htmlHeadings = [...html.matchAll(/<h([1-3])[^>]*>([^<]*)<\/h\1>/g)].map((m) => m[2].replace(/&amp;/g, '&'));
      const mdHeadings = [...md.matchAll(/^#{1,3} (.+)$/gm)].map((m) => m[1].replace(/\\(.)/g, '$1'));
      expect(mdHeadings).toEqual(htmlHeadings);
      const mainHtml = html.slice(html.indexOf('<main'), html.indexOf('</main>'));
      const htmlLinks = [...mainHtml.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
      const mdLinks = [...md.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
      expect(mdLinks).toEqual(htmlLinks);
    }
    const flow = await (await get('/protocol/oauth2/flow/authorization-code', { accept: 'text/markdown' })).text();
    expect(flow).toMatch(/^1\. \*\*Authorization request\*\*/m);
    const svg = await (await get('/protocol/oauth2/flow/authorization-code')).text();
    expect(svg).toContain('<svg');
  });

  it('the looking glass page decodes a token without JavaScript', async () => {
    const reg = (await (
      await fetch(`${server.url}/agentauth/identity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"type":"anonymous"}',
      })
    ).json()) as any;
    const md = await (await get(`/looking-glass?token=${reg.identity_assertion}`, { accept: 'text/markdown' })).text();
    expect(md).toContain('## Claims');
    expect(md).toContain('RFC 7519 §4.1.4');
  });
});

describe('the site icon', () => {
  it('every page links an SVG icon, and /favicon.ico answers (main origin and wallet)', async () => {
    const page = await (await get('/', { accept: 'text/html' })).text();
    expect(page).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml');
      expect(await res.text()).toMatch(/^<svg /);
    }
    const { startWalletServer } = await import('../../support/wallet-server.ts');
    const wallet = await startWalletServer();
    try {
      expect((await fetch(`${wallet.url}/favicon.ico`)).status).toBe(200);
      expect(await (await fetch(`${wallet.url}/`, { headers: { accept: 'text/html' } })).text()).toContain(
        'href="/favicon.svg"',
      );
    } finally {
      await wallet.close();
    }
  });
});
