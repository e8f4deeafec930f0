import { exportJWK, generateKeyPair } from 'jose';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedHttp } from '../../../adapters/outbound/guarded-http.ts';
import { ManualClock } from '../../../services/clock.ts';
import { CheckFailed } from '../../../services/credentials/result.ts';
import { compressTokenList, packStatuses } from '../../../services/credentials/status-list/bits.ts';
import {
  signStatusListCwt,
  signStatusListJwt,
  type StatusListClaims,
} from '../../../services/credentials/status-list/token.ts';
import type { SigningKey } from '../../../services/keys.ts';
import { StatusChecker, type StatusReference } from '../../../services/status/check.ts';
import { guardedListSource, type StatusListSource } from '../../../services/status/source.ts';

// Issue 34: each list check of the status rule fails for its reason, failures are closed, and a verified
// list is kept for its ttl (never past exp) by the injected clock.
const URI = 'https://issuer.example/status-lists/one';
let trusted: SigningKey;
let stranger: SigningKey;
const clock = new ManualClock(Date.UTC(2026, 10, 27));
const nowS = () => Math.floor(clock.now() / 1000);
async function keyPair(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { kid, alg: 'ES256', privateKey, publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid } };
}
beforeAll(async () => {
  trusted = await keyPair('trusted');
  stranger = await keyPair('stranger');
});

const claims = (overrides: Partial<StatusListClaims> = {}): StatusListClaims => ({
  sub: URI,
  iat: nowS(),
  exp: nowS() + 3600,
  ttl: 300,
  bits: 2,
  lst: compressTokenList(
    packStatuses(16, 2, [
      [3, 1],
      [5, 2],
    ]),
  ),
  ...overrides,
});
/** A source serving whatever `body` holds now, counting fetches. */
function servedBy(body: () => Promise<string>): StatusListSource & { fetches: number } {
  const fetch = async () => {
    source.fetches++;
    return { contentType: 'application/statuslist+jwt', body: Buffer.from(await body()) };
  };
  const source = Object.assign(fetch, { fetches: 0 });
  return source;
}
const checkerOf = (source: StatusListSource) =>
  new StatusChecker(
    source,
    {
      keyFor: async (header) => {
        if (header.kid !== trusted.kid) throw new CheckFailed('status_list_signature', 'unknown kid');
        return trusted.publicJwk;
      },
      w3cIssuers: () => [],
    },
    clock,
  );
const at = (idx: number): StatusReference => ({ kind: 'token', uri: URI, idx });

describe('the status rule', () => {
  it('reads VALID, INVALID and SUSPENDED, naming every list check that held', async () => {
    const checker = checkerOf(servedBy(() => signStatusListJwt(claims(), trusted)));
    const valid = await checker.check(at(0));
    expect(valid).toMatchObject({ value: 0, status: 'VALID', cached: false });
    expect(valid.failure).toBeUndefined();
    expect(valid.held).toEqual(
      expect.arrayContaining(['status_list_typ', 'status_list_signature', 'status_list_sub', 'status_value']),
    );
    expect((await checker.check(at(3))).failure?.check).toBe('credential_revoked');
    expect((await checker.check(at(5))).failure?.check).toBe('credential_suspended');
  });

  it('fails closed on a wrong typ, a stranger key, another sub, an expired list, an index outside, a failed fetch', async () => {
    const cases: Array<[string, () => Promise<string>, number?]> = [
      ['status_list_typ', async () => (await signStatusListJwt(claims(), trusted)).replace(/^[^.]+/, retyped)],
      ['status_list_signature', () => signStatusListJwt(claims(), { ...stranger, kid: trusted.kid })],
      ['status_list_signature', () => signStatusListJwt(claims(), stranger)],
      ['status_list_sub', () => signStatusListJwt(claims({ sub: 'https://issuer.example/status-lists/two' }), trusted)],
      ['status_list_expiry', () => signStatusListJwt(claims({ exp: nowS() - 60 }), trusted)],
      ['status_list_format', () => signStatusListJwt(claims({ bits: 3 }), trusted)],
      ['outside', () => signStatusListJwt(claims(), trusted), 64],
      ['fetch', () => Promise.reject(new Error('connection refused'))],
    ];
    for (const [name, body, idx] of cases) {
      const outcome = await checkerOf(servedBy(body)).check(at(idx ?? 0));
      expect(outcome.failure?.check, name).toBe('status_unavailable');
      if (name.startsWith('status_list')) expect(outcome.failure?.reason, name).toMatch(new RegExp(`^${name}`));
    }
  });

  it('keeps a verified list for its ttl and no longer, and never past exp', async () => {
    let value = 0;
    const source = servedBy(() =>
      signStatusListJwt(claims({ lst: compressTokenList(packStatuses(16, 2, [[0, value]])) }), trusted),
    );
    const checker = checkerOf(source);
    expect((await checker.check(at(0))).status).toBe('VALID');
    value = 1;
    clock.advance(299_000);
    const cached = await checker.check(at(0));
    expect(cached).toMatchObject({ status: 'VALID', cached: true });
    expect(source.fetches).toBe(1);
    clock.advance(2_000);
    expect((await checker.check(at(0))).status).toBe('INVALID');
    expect(source.fetches).toBe(2);

    const shortLived = servedBy(() => signStatusListJwt(claims({ exp: nowS() + 30 }), trusted));
    const early = checkerOf(shortLived);
    await early.check(at(0));
    clock.advance(31_000);
    await early.check(at(0));
    expect(shortLived.fetches).toBe(2);
  });
});

/** The header with another typ (the signature no longer matters: typ is checked first). */
function retyped(): string {
  return Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'trusted', typ: 'JWT' })).toString('base64url');
}

describe('lists of other origins go through the outbound guard', () => {
  let server: ReturnType<typeof createServer>;
  let url: string;
  beforeAll(async () => {
    server = createServer(async (_request, response) => {
      response.setHeader('content-type', 'application/statuslist+jwt');
      response.end(await signStatusListJwt(claims({ sub: url }), trusted));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/lists/1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses a loopback list with the hook off, and fetches it with OUTBOUND_ALLOW_LOOPBACK', async () => {
    const guarded = (allowLoopback: boolean) =>
      new GuardedHttp({ trustedOrigins: new Set(), allowExternal: true, allowLoopback });
    const refused = await checkerOf(guardedListSource(guarded(false))).check({ kind: 'token', uri: url, idx: 0 });
    expect(refused.failure?.check).toBe('status_unavailable');
    expect(refused.failure?.reason).toMatch(/not allowed/);
    const fetched = await checkerOf(guardedListSource(guarded(true))).check({ kind: 'token', uri: url, idx: 0 });
    expect(fetched).toMatchObject({ status: 'VALID' });
  });
});

// Issue 46 §5: a Token Status List served as a CWT is verified (typ, COSE signature, subject, times)
// before its bits are believed, as a JWT one is.
describe('a list served as a CWT', () => {
  const cwtSource =
    (bytes: () => Uint8Array): StatusListSource =>
    async (_url, accept) => {
      expect(accept).toContain('application/statuslist+cwt');
      return { contentType: 'application/statuslist+cwt', body: Buffer.from(bytes()) };
    };

  it('is read once its COSE signature verifies with the trusted key', async () => {
    const checker = checkerOf(cwtSource(() => signStatusListCwt(claims(), trusted)));
    const valid = await checker.check(at(0));
    expect(valid).toMatchObject({ value: 0, status: 'VALID' });
    expect(valid.held).toEqual(expect.arrayContaining(['status_list_typ', 'status_list_signature', 'status_list_sub']));
    expect((await checker.check(at(3))).failure?.check).toBe('credential_revoked');
  });

  it('fails closed when signed by a stranger, for another subject, or when it is not a CWT at all', async () => {
    const cases: Array<[() => Uint8Array, string]> = [
      [() => signStatusListCwt(claims(), { ...stranger, kid: trusted.kid }), 'status_list_signature'],
      [() => signStatusListCwt(claims({ sub: 'https://issuer.example/other' }), trusted), 'status_list_sub'],
      [() => new Uint8Array([1, 2, 3]), 'status_list_format'],
    ];
    for (const [bytes, check] of cases) {
      const outcome = await checkerOf(cwtSource(bytes)).check(at(0));
      expect(outcome.failure?.check, check).toBe('status_unavailable');
      expect(outcome.failure?.reason, check).toMatch(new RegExp(`^${check}:`));
    }
  });
});
