import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_ROUTES } from '../../../adapters/http/main/routes.ts';
import { EXTENSIONS_ON, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 46 §1: the composition root builds the whole graph; route plugins only read it, so their order
// is free. A server with the plugins reversed serves the same routes and documents, and the catalog's
// flows run on it.
let forward: TestServer;
let reversed: TestServer;
beforeAll(async () => {
  [forward, reversed] = await Promise.all([
    startMainServer({ env: EXTENSIONS_ON }),
    startMainServer({ env: EXTENSIONS_ON, origin: { routes: [...MAIN_ROUTES].reverse() } }),
  ]);
});
afterAll(async () => {
  await Promise.all([forward?.close(), reversed?.close()]);
});

const body = async (server: TestServer, path: string) => {
  const res = await fetch(server.url + path);
  expect(res.status, path).toBe(200);
  // Each server has its own keys: key material is left out of the comparison.
  return JSON.stringify(await res.json(), (name, value) =>
    ['x', 'y', 'n', 'kid'].includes(name) ? '…' : value,
  ).replaceAll(server.url, 'BASE');
};

describe('route plugins in reverse order', () => {
  it('serve the same routes', () => {
    expect([...reversed.main.routes].sort()).toEqual([...forward.main.routes].sort());
  });

  it('serve the same /api, metadata and discovery documents', async () => {
    for (const path of [
      '/api',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server/oauth2',
      '/.well-known/openid-credential-issuer/oid4vci',
      '/.well-known/ssf-configuration',
      '/.well-known/api-catalog',
      '/mcp/server-card',
      '/.well-known/oauth-protected-resource/mcp/user',
    ])
      expect(await body(reversed, path), path).toBe(await body(forward, path));
  });

  it('leave the graph as the composition root built it: frozen, with no member added', () => {
    const ctx = reversed.main.ctx;
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(Object.isFrozen(ctx.apiEndpoints) && Object.isFrozen(ctx.originMetadata)).toBe(true);
    expect(Object.keys(ctx).sort()).toEqual(Object.keys(forward.main.ctx).sort());
    // Only the composition root adds shutdown work; plugins close their own resources by fastify hooks.
    expect(ctx.onClose.length).toBe(forward.main.ctx.onClose.length);
  });

  it('run every executable flow of the catalog that needs no input', async () => {
    const protocols = (await (await fetch(`${reversed.url}/api/protocols`)).json()) as { protocols: { id: string }[] };
    const ran: string[] = [];
    for (const { id } of protocols.protocols) {
      const { flows } = (await (await fetch(`${reversed.url}/api/protocols/${id}/flows`)).json()) as {
        flows: { id: string; executable: boolean; needs_target?: boolean }[];
      };
      for (const flow of flows.filter((f) => f.executable)) {
        const res = await fetch(`${reversed.url}/api/protocols/${id}/demo/${flow.id}`, json({}));
        const run = (await res.json()) as { status?: string; error?: string };
        expect([res.status, run.status], `${id}/${flow.id}: ${JSON.stringify(run).slice(0, 300)}`).toEqual([
          201,
          'succeeded',
        ]);
        ran.push(`${id}/${flow.id}`);
      }
    }
    expect(ran.length).toBeGreaterThanOrEqual(20);
    expect(new Set(ran.map((r) => r.split('/')[0]))).toEqual(
      new Set(['agentauth', 'mcp', 'oauth2', 'oid4vci', 'oid4vp', 'oidc', 'saml', 'scim', 'ssf']),
    );
  });
});
