import fc from 'fast-check';
import { request } from 'undici';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALLET_ENDPOINTS } from '../../../services/wallet/documents.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

// Issue 17: the wallet harness over HTTP.
let w: TestWallet;
const ALLOWED = 'https://app.portico.test';
beforeAll(async () => {
  w = await startWalletServer({ env: { WALLET_ALLOWED_CORS_ORIGINS: ALLOWED } });
});
afterAll(async () => {
  await w.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${w.url}${path}`, { headers });

describe('sessions over HTTP', () => {
  it('mints a session with its cookie, echoes a named one, and keeps sessions apart', async () => {
    const minted = await get('/api/session');
    expect(minted.status).toBe(200);
    const id = minted.headers.get('x-wallet-session')!;
    expect(id).toMatch(/^ws_/);
    expect(minted.headers.get('set-cookie')).toBe(`wallet_session=${id}; Path=/; Max-Age=1200; HttpOnly; SameSite=Lax`);
    expect(minted.headers.get('cache-control')).toBe('no-store');
    const body = (await minted.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        'active_credential_id',
        'credentials',
        'device_key_persistent',
        'device_key_thumbprint',
        'expires_in',
        'haip_enabled',
        'wallet_did_method',
        'wallet_key_thumbprint',
        'wallet_session_id',
        'wallet_subject',
        'wallet_subject_label',
      ].sort(),
    );
    expect(body).toMatchObject({
      wallet_session_id: id,
      wallet_did_method: 'key',
      device_key_persistent: false,
      haip_enabled: false,
      expires_in: 1200,
      active_credential_id: null,
      credentials: [],
    });
    expect(String(body.wallet_subject)).toMatch(/^did:key:z/);
    expect(String(body.wallet_subject_label)).toMatch(/^did:example:wallet-[0-9a-f]{12}$/);

    // The cookie names the same session; a header wins over a cookie.
    const again = (await (await get('/api/session', { cookie: `wallet_session=${id}` })).json()) as Record<
      string,
      unknown
    >;
    expect(again.wallet_key_thumbprint).toBe(body.wallet_key_thumbprint);
    const named = await get('/api/session', { 'x-wallet-session': 'run-1', cookie: `wallet_session=${id}` });
    expect(named.headers.get('x-wallet-session')).toBe('run-1');
    expect(named.headers.get('set-cookie')).toBeNull();
    const other = (await named.json()) as Record<string, unknown>;
    expect(other.wallet_key_thumbprint).not.toBe(body.wallet_key_thumbprint);
    expect(other.device_key_thumbprint).toBe(body.device_key_thumbprint);
    const bad = await get('/api/session', { 'x-wallet-session': 'no spaces allowed' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('concurrent first requests of one id get one session', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        get('/api/session', { 'x-wallet-session': 'concurrent' }).then(
          (r) => r.json() as Promise<Record<string, unknown>>,
        ),
      ),
    );
    expect(new Set(answers.map((a) => a.wallet_key_thumbprint)).size).toBe(1);
  });

  it('expired sessions start empty after the TTL (injected clock)', async () => {
    const before = (await (await get('/api/session', { 'x-wallet-session': 'ttl' })).json()) as Record<string, unknown>;
    w.clock.advance(1200 * 1000);
    const after = (await (await get('/api/session', { 'x-wallet-session': 'ttl' })).json()) as Record<string, unknown>;
    expect(after.wallet_key_thumbprint).not.toBe(before.wallet_key_thumbprint);
  });
});

describe('discovery documents', () => {
  it('/health, /llms.txt, /llms-full.txt, GET / as markdown, the API catalog, the skill and robots', async () => {
    expect(await (await get('/health')).json()).toEqual({
      status: 'ok',
      service: 'wallet',
      mode: 'standalone',
      haip_enabled: false,
      device_key_persistent: false,
    });
    const llms = await (await get('/llms.txt')).text();
    expect(llms).toMatch(/^# Portico wallet harness/);
    expect(llms).toContain(`${w.url}/llms-full.txt`);
    const recipes = await (await get('/llms-full.txt')).text();
    for (const e of WALLET_ENDPOINTS) {
      expect(recipes).toContain(`## ${e.method} ${e.path}`);
      expect(recipes).toContain(e.curl);
    }
    // Issue 45 item 4 (the spec's wallet table, over issue 30 item 29): markdown at / is the API recipes,
    // byte for byte the body of /llms-full.txt, and mints no session.
    const markdown = await get('/', { accept: 'text/markdown' });
    expect(markdown.headers.get('content-type')).toContain('text/markdown');
    expect(markdown.headers.get('set-cookie')).toBeNull();
    expect(markdown.headers.get('vary')).toMatch(/Accept/i);
    expect(await markdown.text()).toBe(recipes);
    const page = await get('/', { accept: 'text/html' });
    expect(await page.text()).toMatch(/<h1>Wallet/);
    const catalog = await get('/.well-known/api-catalog');
    expect(catalog.headers.get('content-type')).toContain('application/linkset+json');
    expect(((await catalog.json()) as { linkset: Array<{ anchor: string }> }).linkset.map((l) => l.anchor)).toContain(
      `${w.url}/api`,
    );
    const skill = await (await get('/.well-known/agent-skills/use-wallet-harness/SKILL.md')).text();
    expect(skill).toMatch(/^---\nname: use-wallet-harness\n/);
    expect(skill).toContain(`W=${w.url}`);
    expect(skill).not.toContain('{{');
    // The origin the request reached is substituted (Host header), X-Forwarded-* believed from loopback.
    // fetch() may not set Host; undici's request may.
    const viaHost = await (
      await request(`${w.url}/.well-known/agent-skills/use-wallet-harness/SKILL.md`, {
        headers: { host: 'wallet.example:8443' },
      })
    ).body.text();
    expect(viaHost).toContain('W=http://wallet.example:8443');
    const forwarded = await (
      await get('/.well-known/agent-skills/use-wallet-harness/SKILL.md', {
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'portico.example',
        'x-forwarded-prefix': '/wallet-harness',
      })
    ).text();
    expect(forwarded).toContain('W=https://portico.example/wallet-harness');
    const robots = await (await get('/robots.txt')).text();
    expect(robots).toContain('Content-Signal: search=yes, ai-input=yes, ai-train=no');
  });

  it('the wallet page for people and the consent page of an unknown request', async () => {
    const page = await get('/', { accept: 'text/html' });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<h1');
    expect(html).toMatch(/Holder DID/);
    expect(page.headers.get('set-cookie')).toMatch(/^wallet_session=ws_/);
    const consent = await get('/consent/nope', { accept: 'text/html' });
    expect(consent.status).toBe(404);
    expect(await consent.text()).toContain('No such request');
  });
});

describe('CORS (WALLET_ALLOWED_CORS_ORIGINS)', () => {
  it('allowed origins get their origin back with X-Wallet-Session exposed; other preflights are refused', async () => {
    const simple = await get('/api/session', { origin: ALLOWED });
    expect(simple.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(simple.headers.get('access-control-expose-headers')).toBe('X-Wallet-Session');
    expect(simple.headers.get('access-control-allow-credentials')).toBe('true');
    const preflight = await fetch(`${w.url}/api/session`, {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-wallet-session',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-wallet-session');
    const stranger = await get('/api/session', { origin: 'https://evil.example' });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const refused = await fetch(`${w.url}/api/session`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(await refused.json()).toMatchObject({ error: 'cors_origin_not_allowed' });
  });
});

describe('fuzzed requests on every wallet endpoint', () => {
  it('never a 5xx, always the JSON error shape on API errors, nothing echoed as a stack', async () => {
    const paths = [
      '/api/session',
      '/health',
      '/llms.txt',
      '/llms-full.txt',
      '/',
      '/consent/x',
      '/wallet/x/did.json',
      '/.well-known/api-catalog',
      ...WALLET_ENDPOINTS.map((e) => e.path),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.constantFrom('GET', 'POST', 'OPTIONS'),
        fc.string({ maxLength: 60 }),
        fc.string({ maxLength: 40 }),
        async (path, method, body, session) => {
          const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
          if (/^[\x20-\x7e]*$/.test(session) && session) headers['x-wallet-session'] = session;
          const res = await fetch(`${w.url}${path}`, { method, headers, ...(method === 'POST' ? { body } : {}) });
          const text = await res.text();
          // 502 is the wallet's answer when its upstream (here: none listening) fails; no other 5xx.
          expect(
            res.status < 500 || res.status === 502,
            `${method} ${path} -> ${res.status} ${text.slice(0, 200)}`,
          ).toBe(true);
          if (res.status === 502) expect(JSON.parse(text).error).toBe('upstream_error');
          if (res.status >= 400 && (res.headers.get('content-type') ?? '').includes('json'))
            expect(typeof JSON.parse(text).error).toBe('string');
          expect(text).not.toMatch(/\n\s+at .+\.(ts|js):\d+/);
        },
      ),
      { numRuns: 300 },
    );
  }, 60_000);
});

describe('the wallet rate limit', () => {
  it('counts /api/*, /submit and /authorize per client address; discovery and pages stay free', async () => {
    const s = await startWalletServer({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      expect((await fetch(`${s.url}/api/session`, { headers: { 'x-wallet-session': 'a' } })).status).toBe(200);
      expect(
        (
          await fetch(`${s.url}/submit`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          })
        ).status,
      ).toBe(400);
      const limited = await fetch(`${s.url}/api/session`, { headers: { 'x-wallet-session': 'a' } });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBeNull();
      expect(((await limited.json()) as { error: string }).error).toBe('rate_limited');
      expect((await fetch(`${s.url}/%61pi/session`)).status).toBe(429);
      expect((await fetch(`${s.url}/health`)).status).toBe(200);
      expect((await fetch(`${s.url}/llms.txt`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('the wallet event log', () => {
  it('lives at DATA_DIR/wallet.db and npm run replay reads it', async () => {
    const { spawnSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const db = join(w.dataDir, 'wallet.db');
    expect(existsSync(db)).toBe(true);
    const replay = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', db], {
      cwd: fileURLToPath(new URL('../../../', import.meta.url)),
      encoding: 'utf8',
    });
    expect(replay.status).toBe(0);
    expect(replay.stdout.trim().split('\n').pop()).toMatch(/^\d+ stream\(s\), 0 differing$/);
  });
});

describe('the device key', () => {
  it('persists at WALLET_DEVICE_KEY_PATH (0600) across restarts; without it each start has a new one', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'portico-device-'));
    const path = join(dir, 'keys', 'device.pem');
    const thumbprint = async (env: Record<string, string>) => {
      const s = await startWalletServer({ env });
      const body = (await (await fetch(`${s.url}/api/session`)).json()) as {
        device_key_thumbprint: string;
        device_key_persistent: boolean;
      };
      await s.close();
      return body;
    };
    const first = await thumbprint({ WALLET_DEVICE_KEY_PATH: path });
    expect(first.device_key_persistent).toBe(true);
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect((await thumbprint({ WALLET_DEVICE_KEY_PATH: path })).device_key_thumbprint).toBe(
      first.device_key_thumbprint,
    );
    const a = await thumbprint({});
    const b = await thumbprint({});
    expect(a.device_key_persistent).toBe(false);
    expect(a.device_key_thumbprint).not.toBe(b.device_key_thumbprint);
    rmSync(dir, { recursive: true, force: true });
  });

  it('did:web sessions publish their DID document on the wallet origin', async () => {
    const s = await startWalletServer({ env: { WALLET_DID_METHOD: 'web' } });
    const session = (await (await fetch(`${s.url}/api/session`)).json()) as {
      wallet_subject: string;
      wallet_key_thumbprint: string;
    };
    const host = new URL(s.url).host.replace(':', '%3A');
    expect(session.wallet_subject).toBe(`did:web:${host}:wallet:${session.wallet_key_thumbprint}`);
    const doc = await fetch(`${s.url}/wallet/${session.wallet_key_thumbprint}/did.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { id: string }).id).toBe(session.wallet_subject);
    expect((await fetch(`${s.url}/wallet/unknown/did.json`)).status).toBe(404);
    await s.close();
  });
});
