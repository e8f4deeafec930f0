import { createServer, type Server } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { ssfToken } from '../../support/ssf.ts';

// Issue 45 item 36: a receiver naming another transmitter: its keys are fetched through the guard once and
// kept; pushes in any number cause at most one fetch a minute, a failed fetch included.
let server: TestServer;
let transmitter: Server;
let base = '';
let fetches = 0;
let failing = false;
let privateKey: CryptoKey;
let jwk: Record<string, unknown>;
beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey as CryptoKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 't1', alg: 'ES256' };
  transmitter = createServer((req, res) => {
    fetches++;
    if (failing) return res.writeHead(500).end();
    if (req.url === '/.well-known/ssf-configuration')
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks` }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => transmitter.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(transmitter.address() as { port: number }).port}`;
  server = await startMainServer({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true', RATE_LIMIT_PER_MINUTE: '100000' } });
});
afterAll(async () => {
  await server.close();
  transmitter.closeAllConnections();
  await new Promise((resolve) => transmitter.close(resolve));
});

const set = (jti: string) =>
  new SignJWT({ iss: base, aud: 'rp', jti, iat: Math.floor(server.clock.now() / 1000), events: {} })
    .setProtectedHeader({ alg: 'ES256', kid: 't1', typ: 'secevent+jwt' })
    .sign(privateKey);

describe('a receiver of another transmitter', () => {
  it('fetches its keys once for many pushes, and a failing transmitter at most once a minute', async () => {
    const receiver = (await exchange(server.url, '/ssf/receivers', json({ audience: 'rp', transmitter: base }))).body;
    const push = async (jti: string) =>
      (
        await fetch(receiver.endpoint_url, {
          method: 'POST',
          headers: { 'content-type': 'application/secevent+jwt', authorization: receiver.authorization_header },
          body: await set(jti),
        })
      ).status;
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => push(`j${i}`)));
    expect(statuses.every((s) => s === 202)).toBe(true);
    expect(fetches).toBe(2); // its metadata, then its jwks_uri
    // Past the 5 minutes the keys are fetched again; a failure is kept for a minute.
    server.clock.advance(301_000);
    failing = true;
    const refused = await Promise.all(Array.from({ length: 20 }, (_, i) => push(`k${i}`)));
    expect(refused.every((s) => s === 400)).toBe(true);
    expect(fetches).toBe(3);
    server.clock.advance(61_000);
    failing = false;
    expect(await push('m1')).toBe(202);
    expect(fetches).toBe(5);
  });

  // Issue 45 item 39: the five-streams limit is decided in one turn per client, even while creations wait
  // on I/O (a push endpoint named by a host name is resolved before the stream is created).
  it('eight concurrent stream creations of one client: exactly five streams, three refusals', async () => {
    const token = await ssfToken(server, 'machine-client');
    const create = () =>
      exchange(
        server.url,
        '/ssf/streams',
        json(
          {
            delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: `${base.replace('127.0.0.1', 'localhost')}/events` },
          },
          { authorization: `Bearer ${token}` },
        ),
      );
    const racing = await Promise.all(Array.from({ length: 8 }, create));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 201, 403, 403, 403]);
  });
});
