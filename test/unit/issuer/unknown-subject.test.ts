import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadIssuerPki } from '../../../adapters/issuer/pki-file.ts';
import { FileKeyRing } from '../../../adapters/keys/file-key-ring.ts';
import { SqliteEventLog } from '../../../adapters/store/sqlite-event-log.ts';
import { ManualClock } from '../../../services/clock.ts';
import { OAuthError } from '../../../services/errors.ts';
import { IssuerService, PRE_AUTHORIZED_GRANT } from '../../../services/issuer/service.ts';
import { issuerSettings, ISSUING_COUNTRY } from '../../../services/issuer/settings.ts';
import { StatusIndexAllocator, statusSlotsOf } from '../../../services/status/allocator.ts';

// Issue 37 (a named bug): an access token whose subject is not a known user was issued the demo user
// Alice's credential. Two issuers share one real SQLite log: the second no longer knows the offer's user.
const BASE = 'http://127.0.0.1:9';
let dir: string;
let log: SqliteEventLog;
let knowsBob: IssuerService;
let forgotBob: IssuerService;
const clock = new ManualClock(Date.now());
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'issuer-subject-'));
  log = new SqliteEventLog(join(dir, 'main.db'));
  const keys = await FileKeyRing.open(join(dir, 'keys.json'), [['oid4vci', 'ES256']]);
  const settings = issuerSettings(BASE, {
    dpopNonceRequired: false,
    encryptionRequired: false,
    attestationTrustAnchorsPem: [],
  });
  const pki = await loadIssuerPki(dir, settings.issuer, ISSUING_COUNTRY, clock.now());
  const user = (id: string) => [id, { id, claims: { given_name: id, family_name: 'Example' } }] as const;
  const slots = statusSlotsOf(new StatusIndexAllocator(log, clock), {
    tokenUri: (id) => `${settings.issuer}/status-lists/${id}`,
    bitstringUrl: (purpose, id) => `${settings.issuer}/status-lists/w3c/${purpose}/${id}`,
  });
  knowsBob = new IssuerService(log, keys, pki, settings, clock, new Map([user('alice'), user('bob')]), slots);
  forgotBob = new IssuerService(log, keys, pki, settings, clock, new Map([user('alice')]), slots);
});
afterAll(async () => {
  await log.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an access token whose subject is unknown', () => {
  it("[issue 37] is refused with 401 invalid_token, never answered with another user's credential", async () => {
    const issuer = `${BASE}/oid4vci`;
    const offer = await knowsBob.createOffer({
      user: 'bob',
      credential_configuration_ids: ['UniversityDegreeCredential'],
    });
    const token = await knowsBob.token(
      {
        grant_type: PRE_AUTHORIZED_GRANT,
        'pre-authorized_code': (offer as { pre_authorized_code: string }).pre_authorized_code,
      },
      { method: 'POST', url: `${issuer}/token` },
    );
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const proof = await new SignJWT({ nonce: forgotBob.nonce().c_nonce })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: await exportJWK(publicKey) })
      .setAudience(issuer)
      .setIssuedAt(Math.floor(clock.now() / 1000))
      .sign(privateKey);
    const asked = forgotBob.credential(
      { credential_configuration_id: 'UniversityDegreeCredential', proofs: { jwt: [proof] } },
      { method: 'POST', url: `${issuer}/credential`, authorization: `Bearer ${token.access_token}` },
    );
    await expect(asked).rejects.toBeInstanceOf(OAuthError);
    await expect(asked).rejects.toMatchObject({
      error: 'invalid_token',
      status: 401,
      headers: { 'www-authenticate': expect.stringMatching(/^Bearer error="invalid_token"/) },
    });
  });
});
