import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateSamlKeys } from '../../../adapters/keys/saml-key-file.ts';
import { SqliteEventLog } from '../../../adapters/store/sqlite-event-log.ts';
import { ManualClock } from '../../../services/clock.ts';
import { demoUsers } from '../../../services/oauth/demo-users.ts';
import { buildAuthnRequest, newSamlId } from '../../../services/saml/build.ts';
import { AUTHN_CONTEXT, BINDING } from '../../../services/saml/constants.ts';
import { SamlIdp, type SsoOutcome } from '../../../services/saml/idp/service.ts';
import { demoServiceProviders } from '../../../services/saml/service-providers.ts';
import { SignInSessions } from '../../../services/sessions/sign-in-sessions.ts';

// Issue 49: RequestedAuthnContext asks for a stronger login when the session's is weaker. Over HTTP every
// login here is PasswordProtectedTransport (TLS or loopback), so the rule is driven through the service with
// the transport as an argument: a session made over plain HTTP (Password) is asked to sign in again.
const BASE = 'http://idp.example';
let dir: string;
let log: SqliteEventLog;
let idp: SamlIdp;
const clock = new ManualClock(Date.now());
const used = new Set<string>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saml-context-'));
  log = new SqliteEventLog(join(dir, 'main.db'));
  const keys = await loadOrCreateSamlKeys(join(dir, 'saml-keys.json'), clock.now());
  const sps = demoServiceProviders(BASE, keys, clock.now());
  const users = new Map(demoUsers({ passwords: new Map() }).map((u) => [u.id, u]));
  const urls = { entityId: `${BASE}/saml/idp`, sso: `${BASE}/saml/idp/sso`, slo: `${BASE}/saml/idp/slo` };
  idp = new SamlIdp(
    log,
    clock,
    { entityId: urls.entityId, signing: keys.idpSigning, persistentSalt: new Uint8Array(32) },
    urls,
    {
      users,
      serviceProvider: async (entityId) => sps.find((sp) => sp.entityId === entityId),
      useOnce: async (purpose, value) => !used.has(`${purpose} ${value}`) && Boolean(used.add(`${purpose} ${value}`)),
      sessions: new SignInSessions(log, clock),
    },
  );
});
afterAll(async () => {
  await log.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (authnContext?: string) => ({
  binding: BINDING.redirect,
  xml: buildAuthnRequest({
    id: newSamlId(),
    issueInstant: clock.now(),
    issuer: `${BASE}/saml/demo/sps/demo-sp`,
    destination: `${BASE}/saml/idp/sso`,
    acsUrl: 'http://127.0.0.1:8765/saml/acs',
    ...(authnContext ? { authnContextClass: authnContext } : {}),
  }),
});
const statusOf = (outcome: SsoOutcome) =>
  outcome.kind === 'post'
    ? [
        ...Buffer.from(outcome.value, 'base64')
          .toString()
          .matchAll(/StatusCode Value="[^"]*:([A-Za-z]+)"/g),
      ].map((m) => m[1])
    : [];

describe('RequestedAuthnContext and the session', () => {
  it('[saml-core-010] asks a session made over plain HTTP (Password) to sign in again for PasswordProtectedTransport, over TLS', async () => {
    const first = await idp.receive(request(), undefined, false);
    expect(first.kind).toBe('login');
    const signedIn = await idp.login(
      (first as { pendingId: string }).pendingId,
      'alice',
      'alice-demo-password',
      undefined,
      false,
    );
    expect(signedIn?.kind).toBe('post');
    const cookie = (signedIn as { newSession?: string }).newSession!;
    expect((await idp.sessions.live(cookie))?.authnContext).toBe(AUTHN_CONTEXT.password);

    // Weaker or equal: answered from the session. Stronger: a new login, after which the session is stronger.
    expect((await idp.receive(request(AUTHN_CONTEXT.password), cookie, true)).kind).toBe('post');
    const stronger = await idp.receive(request(AUTHN_CONTEXT.protectedPassword), cookie, true);
    expect(stronger.kind, JSON.stringify(statusOf(stronger))).toBe('login');
    await idp.login((stronger as { pendingId: string }).pendingId, 'alice', 'alice-demo-password', cookie, true);
    expect((await idp.sessions.live(cookie))?.authnContext).toBe(AUTHN_CONTEXT.protectedPassword);
    expect((await idp.receive(request(AUTHN_CONTEXT.protectedPassword), cookie, true)).kind).toBe('post');

    // Over plain HTTP this IdP cannot give PasswordProtectedTransport at all: NoAuthnContext.
    expect(statusOf(await idp.receive(request(AUTHN_CONTEXT.protectedPassword), cookie, false))).toEqual([
      'Responder',
      'NoAuthnContext',
    ]);
  });
});
