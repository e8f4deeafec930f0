import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { looksLikeJwt, redactor } from '../../../services/flows/redact.ts';

const redact = redactor(Buffer.alloc(32, 7));
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 13 item 8: what a run keeps in the immutable log is redacted by value as well as by name,
// and public metadata stays readable.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const walk = (value: unknown, visit: (v: unknown, key: string) => void, key = '') => {
  visit(value, key);
  if (Array.isArray(value)) value.forEach((v) => walk(v, visit, key));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, visit, k);
};

describe('run captures in the log (issue 13 item 8)', () => {
  it('keep no private JWK member and no JWT of a private_key_jwt run, in the API view and in the raw rows', async () => {
    const run = (await (
      await fetch(
        `${server.url}/api/protocols/oauth2/demo/client-credentials`,
        json({ client_auth: 'private_key_jwt' }),
      )
    ).json()) as { run_id: string; status: string };
    expect(run.status).toBe('succeeded');
    const clients = (await (await fetch(`${server.url}/oauth2/demo/clients`)).json()) as {
      clients: Array<{ client_id: string; private_jwks?: { keys: Array<Record<string, string>> } }>;
    };
    const privateValues = clients.clients
      .flatMap((c) => c.private_jwks?.keys ?? [])
      .flatMap((k) => ['d', 'p', 'q', 'dp', 'dq', 'qi'].map((m) => k[m]).filter(Boolean));
    expect(privateValues.length).toBeGreaterThan(5);

    const stored = await (await fetch(`${server.url}/api/runs/${run.run_id}`)).json();
    const rows = new Database(join(server.dataDir, 'main.db'), { readonly: true })
      .prepare('SELECT data FROM events WHERE stream_id = ?')
      .all(`run:${run.run_id}`) as Array<{ data: string }>;
    const raw = rows.map((r) => r.data).join('\n');
    for (const secret of privateValues) {
      expect(raw).not.toContain(secret);
      expect(JSON.stringify(stored)).not.toContain(secret);
    }
    walk(stored, (v, key) => {
      if (typeof v === 'string' && key !== 'tokens') expect(looksLikeJwt(v), `${key}: ${v.slice(0, 40)}`).toBe(false);
    });
  });

  it('keeps public metadata readable while tokens and secrets are fingerprinted', async () => {
    const run = (await (await fetch(`${server.url}/api/protocols/oidc/demo/discovery`, json({}))).json()) as {
      run_id: string;
      status: string;
    };
    expect(run.status).toBe('succeeded');
    const stored = (await (await fetch(`${server.url}/api/runs/${run.run_id}`)).json()) as {
      exchanges: Array<{ response: { body: Record<string, unknown> } }>;
    };
    const configuration = stored.exchanges
      .map((x) => x.response.body)
      .find((b) => b && typeof b === 'object' && 'authorization_endpoint' in b)!;
    expect(configuration.authorization_endpoint).toBe(`${server.url}/oidc/authorize`);
    expect(configuration.token_endpoint).toBe(`${server.url}/oidc/token`);
    expect(Array.isArray(configuration.token_endpoint_auth_methods_supported)).toBe(true);
    expect(Array.isArray(configuration.id_token_signing_alg_values_supported)).toBe(true);
    expect(JSON.stringify(stored)).not.toMatch(
      /"(authorization_endpoint|token_endpoint|id_token_signing_alg_values_supported)":"\[redacted/,
    );
  });

  it('redacts by value wherever a value stands', () => {
    const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
    const out = redact({
      note: jwt,
      nested: [{ whatever: `Bearer ${jwt}` }],
      sd: `${jwt}~WyJhIiwiYiIsImMiXQ~`,
      key: { kty: 'EC', crv: 'P-256', x: 'pub', y: 'pub', d: 'private-scalar' },
      oct: { kty: 'oct', k: 'shared-secret' },
      url: `https://example.com/cb#access_token=abc&state=s&id_token=${jwt}`,
      token_type: 'Bearer',
      host: 'www.example.com',
    }) as Record<string, any>;
    expect(out.note).toMatch(/^\[redacted hmac:/);
    expect(out.nested[0].whatever).toMatch(/^\[redacted hmac:/);
    expect(out.sd).toMatch(/^\[redacted hmac:/);
    expect(out.key).toMatchObject({ kty: 'EC', x: 'pub', y: 'pub' });
    expect(out.key.d).toMatch(/^\[redacted hmac:/);
    expect(out.oct.k).toMatch(/^\[redacted hmac:/);
    expect(out.url).not.toContain('abc');
    expect(out.url).toContain('state=s');
    expect(out.token_type).toBe('Bearer');
    expect(out.host).toBe('www.example.com');
  });
});
