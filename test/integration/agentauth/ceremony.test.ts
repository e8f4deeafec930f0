import { SignJWT, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLAIM_GRANT = 'urn:portico:agent-auth:grant-type:claim';

let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const call = async (path: string, init?: RequestInit) => {
  const res = await fetch(server.url + path, init);
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, headers: res.headers, body, text };
};
const register = () => call('/agentauth/identity', json({ type: 'anonymous' }));
const redeem = (assertion: string) => call('/agentauth/token', form({ grant_type: JWT_BEARER, assertion }));
const poll = (claim_token: string) => call('/agentauth/token', form({ grant_type: CLAIM_GRANT, claim_token }));
const startClaim = (claim_token: string, email = 'person@example.com') =>
  call('/agentauth/identity/claim', json({ claim_token, email }));
const decide = (user_code: string, decision: string) => call('/agentauth/claim', form({ user_code, decision }));

describe('agent registration ceremony over HTTP', () => {
  it('register -> token -> claim -> pending -> slow_down -> approve -> write token and claimed assertion', async () => {
    const reg = await register();
    expect(reg.status).toBe(201);
    expect(reg.body).toMatchObject({
      identity_type: 'anonymous',
      claimed: false,
      expires_in: 600,
      grant_type: JWT_BEARER,
    });
    expect(reg.body.agent_id).toMatch(/^agent-[a-z2-7]{16}$/);
    expect(Buffer.from(reg.body.claim_token, 'base64url')).toHaveLength(32);

    // The assertion is a genuine ES256 JWT from the published keys, and it does not carry the claim token.
    const jwks = createRemoteJWKSet(new URL(`${server.url}/agentauth/jwks`));
    const { payload, protectedHeader } = await jwtVerify(reg.body.identity_assertion, jwks, {
      issuer: `${server.url}/agentauth`,
      audience: `${server.url}/agentauth`,
      currentDate: new Date(server.clock.now()),
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'JWT' });
    expect(payload).toMatchObject({ sub: reg.body.agent_id, claimed: false });
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(reg.text.split(reg.body.identity_assertion).join('')).toContain(reg.body.claim_token);
    expect(JSON.stringify(payload)).not.toContain(reg.body.claim_token);

    const token = await redeem(reg.body.identity_assertion);
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'agent:read' });
    expect(token.headers.get('cache-control')).toBe('no-store');

    const claim = await startClaim(reg.body.claim_token);
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({
      verification_uri: `${server.url}/agentauth/claim`,
      expires_in: 600,
      interval: 5,
    });
    expect(claim.body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);

    expect((await poll(reg.body.claim_token)).body.error).toBe('authorization_pending');
    server.clock.advance(4_999);
    expect((await poll(reg.body.claim_token)).body.error).toBe('slow_down');
    server.clock.advance(5_000);
    expect((await poll(reg.body.claim_token)).body.error).toBe('authorization_pending');

    const page = await call(`/agentauth/claim?user_code=${claim.body.user_code}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toMatch(/not signed in/i);
    // The person sees which agent and which email they are approving before deciding.
    expect(page.text).toContain('You are approving');
    expect(page.text).toContain(`<code>${reg.body.agent_id}</code>`);
    expect(page.text).toContain('<code>person@example.com</code>');
    expect((await call('/agentauth/claim?user_code=BCDF-GHJK')).text).toContain('No outstanding claim has this code');

    // The person types the code in lower case with spaces: normalised.
    const approved = await decide(` ${claim.body.user_code.toLowerCase().replace('-', ' ')} `, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.text).toContain(reg.body.agent_id);

    server.clock.advance(5_000);
    const granted = await poll(reg.body.claim_token);
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({
      token_type: 'Bearer',
      scope: 'agent:read agent:write',
      claimed: true,
      expires_in: 3600,
    });
    const replacement = decodeJwt(granted.body.identity_assertion);
    expect(replacement).toMatchObject({ sub: reg.body.agent_id, claimed: true });

    // The code is single use; the replacement assertion redeems for write scope, once.
    server.clock.advance(5_000);
    expect((await poll(reg.body.claim_token)).body.error).toBe('invalid_grant');
    const write = await redeem(granted.body.identity_assertion);
    expect(write.body.scope).toBe('agent:read agent:write');
    expect((await redeem(granted.body.identity_assertion)).body.error).toBe('invalid_grant');

    const me = await call('/agentauth/me', { headers: { authorization: `Bearer ${write.body.access_token}` } });
    expect(me.body).toEqual({
      agent_id: reg.body.agent_id,
      claimed: true,
      owner_email: 'person@example.com',
      scope: 'agent:read agent:write',
      revoked: false,
    });
  });

  it('expired_token after the code lapses, however long after; a new claim start gives a fresh code', async () => {
    const reg = await register();
    const first = await startClaim(reg.body.claim_token);
    server.clock.advance(600_000);
    expect((await poll(reg.body.claim_token)).body.error).toBe('expired_token');
    expect((await decide(first.body.user_code, 'approve')).status).toBe(400);
    server.clock.advance(86_400_000);
    expect((await poll(reg.body.claim_token)).body.error).toBe('expired_token');
    server.clock.advance(1);
    expect((await poll(reg.body.claim_token)).body.error).toBe('expired_token');

    const second = await startClaim(reg.body.claim_token);
    expect(second.body.user_code).not.toBe(first.body.user_code);
    expect((await poll(reg.body.claim_token)).body.error).toBe('authorization_pending');
  });

  it('an approval 1 ms before lapse counts; one at lapse does not', async () => {
    const a = await register();
    const codeA = (await startClaim(a.body.claim_token)).body.user_code;
    server.clock.advance(599_999);
    expect((await decide(codeA, 'approve')).status).toBe(200);
    const b = await register();
    const codeB = (await startClaim(b.body.claim_token)).body.user_code;
    server.clock.advance(600_000);
    const late = await decide(codeB, 'approve');
    expect(late.status).toBe(400);
    expect(late.text).toMatch(/expired/i);
  });

  it('a declined claim answers access_denied', async () => {
    const reg = await register();
    const { body } = await startClaim(reg.body.claim_token);
    expect((await decide(body.user_code, 'decline')).status).toBe(200);
    server.clock.advance(5_000);
    expect((await poll(reg.body.claim_token)).body.error).toBe('access_denied');
  });

  it('a new claim start replaces the outstanding code', async () => {
    const reg = await register();
    const first = await startClaim(reg.body.claim_token);
    const second = await startClaim(reg.body.claim_token);
    expect((await decide(first.body.user_code, 'approve')).status).toBe(400);
    expect((await decide(second.body.user_code, 'approve')).status).toBe(200);
  });
});

describe('agent registration error rows', () => {
  it('type other than anonymous is unsupported_identity_type (ID-JAG included); missing type is invalid_request', async () => {
    for (const type of ['urn:ietf:params:oauth:token-type:id-jag', 'ANONYMOUS', 'named']) {
      const r = await call('/agentauth/identity', json({ type }));
      expect([r.status, r.body.error]).toEqual([400, 'unsupported_identity_type']);
    }
    for (const body of [{}, { type: '' }]) {
      const r = await call('/agentauth/identity', json(body));
      expect([r.status, r.body.error]).toEqual([400, 'invalid_request']);
    }
  });

  it('every jwt-bearer failure is invalid_grant with one description that names no check', async () => {
    const reg = await register();
    const good = reg.body.identity_assertion as string;
    const foreign = await generateKeyPair('ES256');
    const now = Math.floor(server.clock.now() / 1000);
    const forge = (claims: Record<string, unknown>, key = foreign.privateKey, kid = decodeProtectedHeader(good).kid) =>
      new SignJWT({ jti: `j-${Math.random()}`, ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid })
        .sign(key);
    const [h, p, s] = good.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(good), sub: 'agent-aaaaaaaaaaaaaaaa' })).toString('base64url')}.${s}`;
    const cases = {
      'bad signature': await forge({
        iss: `${server.url}/agentauth`,
        aud: `${server.url}/agentauth`,
        sub: reg.body.agent_id,
        iat: now,
        nbf: now,
        exp: now + 600,
      }),
      'tampered payload': tampered,
      'not a jwt': 'abc.def',
    };
    const descriptions = new Set<string>();
    await redeem(good);
    descriptions.add((await redeem(good)).body.error_description); // replay
    for (const assertion of Object.values(cases)) {
      const r = await redeem(assertion);
      expect([r.status, r.body.error]).toEqual([400, 'invalid_grant']);
      descriptions.add(r.body.error_description);
    }
    // expired: a fresh assertion redeemed after 600 s
    const late = await register();
    server.clock.advance(600_000);
    const expired = await redeem(late.body.identity_assertion);
    expect(expired.body.error).toBe('invalid_grant');
    descriptions.add(expired.body.error_description);
    expect(descriptions.size).toBe(1);
    expect([...descriptions][0]).not.toMatch(/signature|nbf|audience|issuer|jti|subject|key/i);
    void p;
  });

  it('claim start: bad email is invalid_request, unknown claim token is invalid_grant', async () => {
    const reg = await register();
    expect((await startClaim(reg.body.claim_token, 'not-an-email')).body.error).toBe('invalid_request');
    expect((await startClaim('nope', 'a@example.com')).body.error).toBe('invalid_grant');
    expect((await call('/agentauth/identity/claim', json({ email: 'a@example.com' }))).body.error).toBe(
      'invalid_request',
    );
  });

  it('claim grant without a claim started, or with an unknown token, is invalid_grant; other grants unsupported_grant_type', async () => {
    const reg = await register();
    expect((await poll(reg.body.claim_token)).body.error).toBe('invalid_grant');
    expect((await poll('unknown')).body.error).toBe('invalid_grant');
    const r = await call('/agentauth/token', form({ grant_type: 'client_credentials' }));
    expect([r.status, r.body.error]).toEqual([400, 'unsupported_grant_type']);
    expect((await call('/agentauth/token', form({ grant_type: JWT_BEARER }))).body.error).toBe('invalid_request');
  });
});
