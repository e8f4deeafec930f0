import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedHttp, checkAddress, checkedLookup, type Resolver } from '../../../adapters/outbound/guarded-http.ts';
import { OAuthError } from '../../../services/errors.ts';

// Issue 17: the wallet's outbound guard. Nothing here may reach the canary: it counts connections.
let canary: NetServer;
let canaryPort = 0;
let canaryConnections = 0;
let trusted: Server;
let trustedOrigin = '';
const trustedHits: string[] = [];
let trickled = 0;

const listen = (server: Server | NetServer) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );

beforeAll(async () => {
  canary = createServer((socket) => {
    canaryConnections += 1;
    socket.destroy();
  });
  canaryPort = await listen(canary);
  trusted = createHttpServer((req, res) => {
    trustedHits.push(req.url!);
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/ok') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (url.pathname === '/to-evil')
      return res.writeHead(302, { location: `https://evil.example:${canaryPort}/` }).end();
    if (url.pathname === '/to-http')
      return res.writeHead(302, { location: `http://public.example:${canaryPort}/` }).end();
    if (url.pathname.startsWith('/hop/')) {
      const n = Number(url.pathname.slice(5));
      return n > 0 ? res.writeHead(302, { location: `/hop/${n - 1}` }).end() : res.writeHead(200).end('arrived');
    }
    if (url.pathname === '/big') return res.writeHead(200).end(Buffer.alloc(2 * 1024 * 1024, 97));
    if (url.pathname === '/hang') return; // never answers
    if (url.pathname === '/trickle') {
      // One byte every 100 ms for 4 s: never idle long enough for an idle timeout.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => {
        if (res.destroyed || trickled >= 40) {
          clearInterval(timer);
          res.end();
          return;
        }
        trickled += 1;
        res.write('x');
      }, 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (url.pathname === '/error')
      return res
        .writeHead(500, { 'content-type': 'application/json' })
        .end('{"error":"invalid_request","error_description":"SECRET-UPSTREAM-BODY <script>"}');
    if (url.pathname === '/weird-error')
      return res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"<img src=x onerror=alert(1)>"}');
    res.writeHead(404).end();
  });
  trustedOrigin = `http://127.0.0.1:${await listen(trusted)}`;
});
afterAll(async () => {
  trusted.closeAllConnections();
  await new Promise((r) => trusted.close(r));
  await new Promise((r) => canary.close(r));
  expect(canaryConnections).toBe(0);
});

const DNS: Record<string, string[]> = {
  'evil.example': ['127.0.0.1'],
  'mixed.example': ['93.184.216.34', '10.0.0.5'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
  'shared.example': ['100.64.0.1'],
  'public.example': ['93.184.216.34'],
};
const stubResolver: Resolver = async (host) => {
  const answer = DNS[host];
  if (!answer) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  return answer;
};
const guard = (overrides: Partial<ConstructorParameters<typeof GuardedHttp>[0]> = {}) =>
  new GuardedHttp({
    trustedOrigins: new Set([trustedOrigin]),
    allowExternal: true,
    resolver: stubResolver,
    ...overrides,
  });

async function refusal(
  promise: Promise<unknown>,
): Promise<{ error: string; status: number; body: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthError);
    const e = error as OAuthError;
    return { error: e.error, status: e.status, body: e.toJSON() as Record<string, unknown> };
  }
  throw new Error('expected a refusal');
}

describe('the outbound guard refuses non-public destinations before anything is sent', () => {
  const cases: Array<[string, string, string]> = [
    ['plain http to an external host', `http://public.example:${canaryPort}/`, 'destination_not_allowed'],
    ['an IP literal on loopback', `https://127.0.0.1:${canaryPort}/`, 'destination_not_allowed'],
    ['an IPv6 loopback literal', `https://[::1]:${canaryPort}/`, 'destination_not_allowed'],
    ['an IPv4-mapped loopback literal', `https://[::ffff:127.0.0.1]:${canaryPort}/`, 'destination_not_allowed'],
    ['a private IP literal', 'https://10.1.2.3/', 'destination_not_allowed'],
    ['the unspecified address', 'https://0.0.0.0/', 'destination_not_allowed'],
    ['a link-local (cloud metadata) literal', 'https://169.254.169.254/latest/meta-data', 'destination_not_allowed'],
    ['localhost', `https://localhost:${canaryPort}/`, 'destination_not_allowed'],
    ['a *.localhost name', `https://wallet.localhost:${canaryPort}/`, 'destination_not_allowed'],
    ['a .local name', 'https://printer.local/', 'destination_not_allowed'],
    ['an .internal name', 'https://db.internal/', 'destination_not_allowed'],
    ['userinfo', 'https://user:pw@public.example/', 'destination_not_allowed'],
    // SSRF advisory: checks that look only at IP literals miss names that resolve inward.
    ['a name resolving to loopback', `https://evil.example:${canaryPort}/`, 'destination_not_allowed'],
    ['a name resolving to an IPv4-mapped loopback', `https://mapped.example:${canaryPort}/`, 'destination_not_allowed'],
    ['a name resolving to link-local', 'https://metadata.example/', 'destination_not_allowed'],
    ['a name resolving to shared address space', 'https://shared.example/', 'destination_not_allowed'],
    ['a name with one public and one private answer', 'https://mixed.example/', 'destination_not_allowed'],
    // SSRF advisory: a name that does not resolve is refused, not passed on.
    ['a name that does not resolve', 'https://nxdomain.example/', 'destination_not_allowed'],
    ['a non-http scheme', 'file:///etc/passwd', 'destination_not_allowed'],
  ];
  for (const [what, url, error] of cases) {
    it(`refuses ${what}`, async () => {
      const result = await refusal(guard().send(url));
      expect(result).toMatchObject({ error, status: 400 });
      expect(canaryConnections).toBe(0);
    });
  }

  it('refuses every external destination with 403 when WALLET_ALLOW_EXTERNAL_VERIFIERS is false', async () => {
    expect(await refusal(guard({ allowExternal: false }).send('https://public.example/'))).toMatchObject({
      error: 'external_verifiers_disabled',
      status: 403,
    });
    expect((await guard({ allowExternal: false }).send(`${trustedOrigin}/ok`)).status).toBe(200);
  });

  it('every address range other than unicast is refused (ipaddr.js ranges)', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.0.1',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '0.0.0.0',
      '192.0.2.1',
      '198.51.100.1',
      '203.0.113.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'ff02::1',
      '::ffff:10.0.0.1',
      '2001:db8::1',
      '64:ff9b::7f00:1',
    ]) {
      expect(() => checkAddress(address), address).toThrow(OAuthError);
    }
    for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.216.34'])
      expect(() => checkAddress(address), address).not.toThrow();
  });
});

describe('redirects, size, time and bodies', () => {
  it('a redirect from a trusted origin to an inward name is refused at the hop (unchecked redirects)', async () => {
    expect(await refusal(guard().send(`${trustedOrigin}/to-evil`))).toMatchObject({ error: 'destination_not_allowed' });
    expect(await refusal(guard().send(`${trustedOrigin}/to-http`))).toMatchObject({ error: 'destination_not_allowed' });
    expect(canaryConnections).toBe(0);
  });

  it('follows at most two redirects; a third is never requested', async () => {
    const ok = await guard().send(`${trustedOrigin}/hop/2`);
    expect(ok.status).toBe(200);
    expect(ok.hops).toHaveLength(3);
    trustedHits.length = 0;
    expect(await refusal(guard().send(`${trustedOrigin}/hop/3`))).toMatchObject({
      error: 'upstream_error',
      status: 502,
    });
    expect(trustedHits).toEqual(['/hop/3', '/hop/2', '/hop/1']);
  });

  it('caps bodies at 1 MiB and answers within the time limit', async () => {
    expect(await refusal(guard().send(`${trustedOrigin}/big`))).toMatchObject({ error: 'upstream_error' });
    expect(await refusal(guard({ timeoutMs: 200 }).send(`${trustedOrigin}/hang`))).toMatchObject({
      error: 'upstream_error',
      status: 502,
    });
  });

  it('never reflects upstream bodies: only the status and an OAuth error token survive (reflected bodies)', async () => {
    const { upstreamFailed } = await import('../../../services/outbound.ts');
    const failed = upstreamFailed(await guard().send(`${trustedOrigin}/error`), 'the verifier');
    expect(failed.toJSON()).toEqual({
      error: 'upstream_error',
      error_description: 'the verifier answered HTTP 500',
      upstream_status: 500,
      upstream_error: 'invalid_request',
    });
    expect(JSON.stringify(failed.toJSON())).not.toContain('SECRET-UPSTREAM-BODY');
    const weird = upstreamFailed(await guard().send(`${trustedOrigin}/weird-error`), 'the issuer');
    expect(weird.toJSON()).toEqual({
      error: 'upstream_error',
      error_description: 'the issuer answered HTTP 400',
      upstream_status: 400,
    });
  });
});

describe('the checked lookup pins the dial to the vetted addresses (unpinned dial)', () => {
  it('resolves once, vets every answer and hands exactly those addresses to the connection', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => (++calls === 1 ? ['93.184.216.34'] : ['127.0.0.1']);
    const lookup = checkedLookup(rebinding);
    const first = await new Promise<{ error: Error | null; addresses: unknown }>((resolve) =>
      lookup('rebind.example', { all: true }, (error, addresses) => resolve({ error, addresses })),
    );
    expect(first.error).toBeNull();
    expect(first.addresses).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(calls).toBe(1);
    // The next dial resolves again and is judged again: the rebound answer is refused, never dialled.
    const second = await new Promise<{ error: Error | null }>((resolve) =>
      lookup('rebind.example', { all: false }, (error) => resolve({ error })),
    );
    expect(second.error).toBeInstanceOf(OAuthError);
    expect(calls).toBe(2);
  });

  it('overrides (WALLET_DNS_OVERRIDES) precede DNS and are vetted the same way', async () => {
    const lookup = checkedLookup(async () => ['93.184.216.34'], new Map([['issuer.test', ['127.0.0.1']]]));
    const result = await new Promise<Error | null>((resolve) =>
      lookup('issuer.test', { all: true }, (error) => resolve(error)),
    );
    expect(result).toBeInstanceOf(OAuthError);
  });

  it('the guard dials names only through the checked lookup', async () => {
    // evil.example passes every rule that needs no DNS; only the lookup at dial time can refuse it.
    expect(await refusal(guard().send(`https://evil.example:${canaryPort}/x`))).toMatchObject({
      error: 'destination_not_allowed',
    });
    expect(canaryConnections).toBe(0);
  });
});

describe('the deadline covers the whole response (issue 30 item 17)', () => {
  it('[item 17] an upstream trickling one byte every 100 ms is cut at the total deadline, not read to its end', async () => {
    const http = guard({ timeoutMs: 700 });
    try {
      const refused = await refusal(http.send(`${trustedOrigin}/trickle`));
      expect(refused).toMatchObject({ error: 'upstream_error', status: 502 });
      expect(String(refused.body.error_description)).toMatch(/did not arrive within 0\.7 s/);
      // The wallet stopped reading well before the 40 bytes the upstream meant to send.
      expect(trickled).toBeGreaterThan(0);
      expect(trickled).toBeLessThan(40);
    } finally {
      await http.close();
    }
  });
});
