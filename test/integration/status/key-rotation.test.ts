import { ES256, digest } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateKeys } from '../../../adapters/keys/file-key-ring.ts';
import { asCreator, holderKey, issueWithOffer } from '../../support/holder.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 45 item 11, under a key rotation: a rotation (npm run rotate-keys) opens new status lists for the new
// key, and a list opened before keeps the key that signs the credentials pointing at it, so
// @sd-jwt/sd-jwt-vc's default verify() (the credential's own key checks its list) holds for old and new.
let server: TestServer;
let dataDir: string;
let issuer: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'portico-rotation-'));
  server = await startMainServer({ dataDir });
  issuer = `${server.url}/oid4vci`;
});
afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const nowS = () => Math.floor(server.clock.now() / 1000);
const jwks = async () => ((await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: JWK[] }).keys;
const peerFor = async (credential: string) => {
  const key = (await jwks()).find((k) => k.kid === decodeProtectedHeader(credential).kid)!;
  return new SDJwtVcInstance({ verifier: await ES256.getVerifier(key), hasher: digest, hashAlg: 'sha-256' });
};
const listUri = (credential: string) =>
  (decodeJwt(credential.split('~')[0]!) as { status: { status_list: { uri: string } } }).status.status_list.uri;
const listSigner = async (uri: string) =>
  decodeProtectedHeader(await (await fetch(uri, { headers: { accept: 'application/statuslist+jwt' } })).text()).kid;

describe('status lists across an issuer key rotation', () => {
  it('credentials before and after the rotation each verify with their status list, and revoke apart', async () => {
    const holder = await holderKey();
    const before = await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS());
    const oldKid = decodeProtectedHeader(before.credential as string).kid;
    const kidsBefore = new Set((await jwks()).map((k) => k.kid));

    await rotateKeys(join(dataDir, 'keys.json'), ['oid4vci']);
    // The running server reloads the key file when it changes (it polls the file once a second).
    let added: JWK[] = [];
    for (let tries = 0; tries < 100 && added.length === 0; tries++) {
      added = (await jwks()).filter((k) => !kidsBefore.has(k.kid));
      if (added.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(added.map((k) => k.alg)).toEqual(['ES256']);
    // The previous key is still published: what it signed still verifies.
    expect((await jwks()).map((k) => k.kid)).toContain(oldKid);

    const after = await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS());
    const newKid = decodeProtectedHeader(after.credential as string).kid;
    expect(newKid).toBe(added[0]!.kid);
    // A new list for the new key; the old list keeps its key.
    expect(listUri(after.credential as string)).not.toBe(listUri(before.credential as string));
    expect(await listSigner(listUri(before.credential as string))).toBe(oldKid);
    expect(await listSigner(listUri(after.credential as string))).toBe(newKid);

    const [oldPeer, newPeer] = [await peerFor(before.credential as string), await peerFor(after.credential as string)];
    await expect(oldPeer.verify(before.credential as string)).resolves.toMatchObject({ payload: { iss: issuer } });
    await expect(newPeer.verify(after.credential as string)).resolves.toMatchObject({ payload: { iss: issuer } });
    const revoked = await exchange(
      server.url,
      `/oid4vci/offers/${before.offerId}/credentials/0/status`,
      json({ status: 'revoked' }, asCreator(before.offerId)),
    );
    expect(revoked.status).toBe(200);
    await expect(oldPeer.verify(before.credential as string)).rejects.toThrow(/Status is not valid/);
    await expect(newPeer.verify(after.credential as string)).resolves.toMatchObject({ payload: { iss: issuer } });
  });
});
