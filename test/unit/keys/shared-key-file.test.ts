import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { withDataDirLock } from '../../../adapters/keys/data-dir-lock.ts';
import { FileKeyRing, rotateKeys } from '../../../adapters/keys/file-key-ring.ts';
import { verifierOf } from '../../../services/keys.ts';

/** Issue 20: instances sharing DATA_DIR provision once and see rotations of the shared key file. */
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-keys-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the shared data directory and key file', () => {
  it('provisioning under the lock runs one holder at a time, and instances opening together share one key', async () => {
    const dir = tempDir();
    const order: string[] = [];
    const rings = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        withDataDirLock(dir, async () => {
          order.push(`${name}:in`);
          const ring = await FileKeyRing.open(join(dir, 'keys.json'), [['set', 'ES256']]);
          order.push(`${name}:out`);
          return ring;
        }),
      ),
    );
    // Never two inside at once.
    for (let i = 0; i < order.length; i += 2) expect(order[i + 1]).toBe(order[i].replace(':in', ':out'));
    expect(new Set(rings.map((r) => r.signing('set').kid)).size).toBe(1);
    expect(new Set(rings.map((r) => Buffer.from(r.secret('dpop-nonce')).toString('hex'))).size).toBe(1);
  });

  it('a lock its holder stopped touching is taken over', async () => {
    const dir = tempDir();
    const lock = join(dir, '.provisioning.lock');
    writeFileSync(lock, '99999');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(await withDataDirLock(dir, async () => readFileSync(lock, 'utf8'))).toBe(String(process.pid));
  });

  it('a rotation: the new key signs, the previous still verifies, older ones go; a watching ring reloads', async () => {
    const file = join(tempDir(), 'keys.json');
    const ring = await FileKeyRing.open(file, [
      ['set', 'ES256'],
      ['published:client', 'ES256'],
    ]);
    const stop = ring.watch();
    try {
      const first = ring.signing('set');
      const sign = (key = ring.signing('set')) =>
        new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: key.kid }).sign(key.privateKey);
      const before = await sign(first);
      expect(await rotateKeys(file)).toEqual(['set']); // published demo keys are never rotated
      for (let i = 0; i < 50 && ring.signing('set').kid === first.kid; i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const second = ring.signing('set');
      expect(second.kid).not.toBe(first.kid);
      expect(ring.jwks('set').keys.map((k) => k.kid)).toEqual([first.kid, second.kid]);
      await expect(jwtVerify(before, verifierOf(ring, 'set', 'ES256'))).resolves.toBeTruthy();
      await expect(jwtVerify(await sign(), verifierOf(ring, 'set', 'ES256'))).resolves.toBeTruthy();
      await rotateKeys(file, ['set']);
      for (let i = 0; i < 50 && ring.signing('set').kid === second.kid; i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(ring.jwks('set').keys.map((k) => k.kid)).toEqual([second.kid, ring.signing('set').kid]);
      await expect(jwtVerify(before, verifierOf(ring, 'set', 'ES256'))).rejects.toThrow(); // two rotations ago: gone
      await expect(rotateKeys(file, ['published:client'])).rejects.toThrow(/no signing key set/);
    } finally {
      stop();
    }
  });
});
