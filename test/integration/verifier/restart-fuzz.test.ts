import fc from 'fast-check';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueFromOurIssuer, presentSdJwt, type HolderKey } from '../../support/holder.ts';

// Issue 16: what survives a restart (the log) and what does not (ephemeral keys); fuzzed input; replay.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

describe('OID4VP verifier across a restart', () => {
  it('a pending direct_post.jwt request fails `decryption` after a restart; a plain request is still answerable; results are kept', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'portico-verifier-'));
    try {
      const first = await startMainServer({ dataDir });
      const holder: HolderKey = await holderKey();
      const nowS = Math.floor(first.clock.now() / 1000);
      const sdJwt = (await issueFromOurIssuer(first.url, 'UniversityDegreeCredential', holder, nowS)) as string;
      const query = { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] };
      const encrypted = (
        await exchange(
          first.url,
          '/oid4vp/request/create',
          json({ response_mode: 'direct_post.jwt', dcql_query: query }),
        )
      ).body;
      const plain = (
        await exchange(first.url, '/oid4vp/request/create', json({ client_id_prefix: 'x509_hash', dcql_query: query }))
      ).body;
      const done = (await exchange(first.url, '/oid4vp/request/create', json({ dcql_query: query }))).body;
      const to = (c: any) => ({ clientId: c.client_id, nonce: c.nonce, responseUri: c.response_uri, nowS });
      await exchange(
        first.url,
        '/oid4vp/response',
        form({
          vp_token: JSON.stringify({ degree: [await presentSdJwt(sdJwt, holder, to(done))] }),
          state: done.state,
        }),
      );
      const port = Number(new URL(first.url).port);
      await first.close({ keepData: true });

      const second = await startMainServer({ dataDir, port, clock: first.clock });
      try {
        const key = JSON.parse(new URL(encrypted.authorization_request_uri).searchParams.get('client_metadata')!).jwks
          .keys[0] as JWK;
        const jwe = await new CompactEncrypt(
          new TextEncoder().encode(
            JSON.stringify({
              vp_token: { degree: [await presentSdJwt(sdJwt, holder, to(encrypted))] },
              state: encrypted.state,
            }),
          ),
        )
          .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: key.kid })
          .encrypt(await importJWK(key, 'ECDH-ES'));
        expect(await exchange(second.url, '/oid4vp/response', form({ response: jwe }))).toMatchObject({
          status: 400,
          body: { error: 'invalid_request' },
        });
        expect(
          (await exchange(second.url, `/oid4vp/result/${encrypted.transaction_id}`, { method: 'GET' })).body,
        ).toMatchObject({ status: 'rejected', reasons: [{ check: 'decryption', reason: expect.any(String) }] });
        // The x509 material is kept in DATA_DIR: the same client_id after the restart.
        expect(
          (await exchange(second.url, '/oid4vp/request/create', json({ client_id_prefix: 'x509_hash' }))).body
            .client_id,
        ).toBe(plain.client_id);
        expect((await fetch(plain.request_uri)).status).toBe(200);
        expect(
          (
            await exchange(
              second.url,
              '/oid4vp/response',
              form({
                vp_token: JSON.stringify({ degree: [await presentSdJwt(sdJwt, holder, to(plain))] }),
                state: plain.state,
              }),
            )
          ).status,
        ).toBe(200);
        expect(
          (await exchange(second.url, `/oid4vp/result/${plain.transaction_id}`, { method: 'GET' })).body.status,
        ).toBe('verified');
        expect(
          (await exchange(second.url, `/oid4vp/result/${done.transaction_id}`, { method: 'GET' })).body,
        ).toMatchObject({ status: 'verified', presentations: { degree: [{ format: 'dc+sd-jwt' }] } });
      } finally {
        await second.close({ keepData: true });
      }

      // The log holds no vp_token, no private key, no state in clear; replay folds every presentation stream.
      const db = new Database(join(dataDir, 'main.db'), { readonly: true });
      const rows = db.prepare("SELECT type, data FROM events WHERE stream_id LIKE 'presentation:%'").all() as Array<{
        type: string;
        data: string;
      }>;
      db.close();
      expect(new Set(rows.map((r) => r.type))).toEqual(
        new Set([
          'presentation.created',
          'presentation.request_fetched',
          'presentation.response_received',
          'presentation.verified',
          'presentation.rejected',
        ]),
      );
      const text = rows.map((r) => r.data).join('\n');
      expect(text).not.toContain('~'); // no SD-JWT
      expect(text).not.toContain(encrypted.state);
      expect(text).not.toMatch(/"d":/);
      const replay = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'scripts/replay.ts', join(dataDir, 'main.db'), '--quiet'],
        { cwd: ROOT, encoding: 'utf8' },
      );
      expect(replay.status, replay.stdout.slice(-500)).toBe(0);
      expect(replay.stdout).toMatch(/presentation:[A-Za-z0-9_-]{24} {2}\(\d+ events, (consistent|no snapshot)/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('every verifier endpoint under fuzzed input', () => {
  it('never answers a 5xx, and errors are {error, error_description}', async () => {
    const created = (
      await exchange(
        server.url,
        '/oid4vp/request/create',
        json({ client_id_prefix: 'x509_hash', response_mode: 'direct_post.jwt' }),
      )
    ).body;
    const routes = server.main.routes.filter((r) => r.includes('/oid4vp'));
    expect(routes.length).toBeGreaterThanOrEqual(8);
    const member = fc.constantFrom(
      'vp_token',
      'state',
      'response',
      'error',
      'error_description',
      'wallet_nonce',
      'client_id_prefix',
      'dcql_query',
      'x',
    );
    const value = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.constant(created.state),
      fc.constant('eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTEyOEdDTSIsImtpZCI6IngifQ.a.b.c.d'),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    );
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((v) => ({ type: 'application/json', text: JSON.stringify(v) })),
      fc
        .dictionary(member, value, { maxKeys: 4 })
        .map((d) => ({ type: 'application/x-www-form-urlencoded', text: new URLSearchParams(d).toString() })),
      fc
        .dictionary(member, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 })
        .map((d) => ({ type: 'application/json', text: JSON.stringify(d) })),
      fc.string({ maxLength: 80 }).map((t) => ({ type: 'text/plain', text: t })),
    );
    const segment = fc.oneof(fc.string({ maxLength: 30 }), fc.constant(created.request_id));
    // A generated form that carries the request's state and a well-formed `error` is a wallet's error
    // response (OID4VP 1.0 §8.5): it ends the request, legitimately. Anything else must leave it open.
    let walletErrorAccepted = false;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), segment, body, async (route, seg, b) => {
        const [method, path] = route.split(' ');
        const url = `${server.url}${path.replace(/\{[^}]+\}/g, encodeURIComponent(seg || 'x'))}`;
        const res = await fetch(url, {
          method,
          headers: { accept: 'application/json', ...(method === 'POST' ? { 'content-type': b.type } : {}) },
          ...(method === 'POST' ? { body: b.text } : {}),
        });
        const text = await res.text();
        expect(res.status, `${route} -> ${res.status} ${text.slice(0, 200)}`).toBeLessThan(500);
        if (res.status >= 400) expect(typeof JSON.parse(text).error).toBe('string');
        if (route === 'POST /oid4vp/response' && res.status === 200) {
          expect(new URLSearchParams(b.text).get('state') ?? JSON.parse(b.text).state).toBe(created.state);
          walletErrorAccepted = true;
        }
      }),
      { numRuns: 400 },
    );
    const status = (await exchange(server.url, `/oid4vp/result/${created.transaction_id}`, { method: 'GET' })).body
      .status;
    expect(status).toBe(walletErrorAccepted ? 'wallet_error' : status === 'fetched' ? 'fetched' : 'created');
  }, 120_000);
});
