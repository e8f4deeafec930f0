import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { KeyRing, SigningAlg, SigningKey } from '../../services/keys.ts';

type StoredKeys = Record<string, JWK[]>;

/** Key sets whose private keys are demo material, published on purpose (e.g. `published:pkjwt-app`). */
export const PUBLISHED_PREFIX = 'published:';
/** Server secrets, stored as symmetric (`oct`) JWKs beside the signing keys. */
const SECRET_PREFIX = 'secret:';
/** Secrets every service may ask for; each is created on first start. */
const SECRETS = ['user-code', 'c-nonce', 'oid4vp-state', 'dpop-nonce'];

/**
 * Signing keys kept in `keys.json` (mode 0600) under DATA_DIR, created on first start. Every requested
 * set/alg pair is provisioned by `ensure` before the services start, so lookups afterwards are
 * synchronous.
 */
export class FileKeyRing implements KeyRing {
  private readonly keys = new Map<string, SigningKey[]>();
  private readonly privateJwks = new Map<string, JWK[]>();
  private readonly secrets = new Map<string, Uint8Array>();

  private constructor(private readonly file: string) {}

  static async open(dataDir: string, wanted: ReadonlyArray<[set: string, alg: SigningAlg]>): Promise<FileKeyRing> {
    const ring = new FileKeyRing(join(dataDir, 'keys.json'));
    const stored: StoredKeys = existsSync(ring.file) ? (JSON.parse(readFileSync(ring.file, 'utf8')) as StoredKeys) : {};
    let changed = false;
    for (const [set, alg] of wanted) {
      const list = (stored[set] ??= []);
      if (!list.some((k) => k.alg === alg)) {
        list.push(await newPrivateJwk(alg));
        changed = true;
      }
    }
    for (const name of SECRETS) {
      if (stored[`${SECRET_PREFIX}${name}`]?.length) continue;
      stored[`${SECRET_PREFIX}${name}`] = [{ kty: 'oct', kid: name, k: randomBytes(32).toString('base64url') }];
      changed = true;
    }
    if (changed) ring.save(stored);
    for (const [set, jwks] of Object.entries(stored)) {
      if (set.startsWith(SECRET_PREFIX)) {
        ring.secrets.set(set.slice(SECRET_PREFIX.length), Buffer.from(jwks[0].k!, 'base64url'));
        continue;
      }
      ring.keys.set(set, await Promise.all(jwks.map(toSigningKey)));
      if (set.startsWith(PUBLISHED_PREFIX)) ring.privateJwks.set(set, jwks);
    }
    return ring;
  }

  signing(set: string, alg: SigningAlg = 'ES256'): SigningKey {
    const key = this.keys.get(set)?.find((k) => k.alg === alg);
    if (!key) throw new Error(`no ${alg} signing key provisioned for "${set}"`);
    return key;
  }

  jwks(set: string): { keys: JWK[] } {
    return { keys: (this.keys.get(set) ?? []).map((k) => k.publicJwk) };
  }

  publishedPrivateJwks(set: string): { keys: JWK[] } {
    if (!set.startsWith(PUBLISHED_PREFIX)) throw new Error(`key set "${set}" is not published`);
    return { keys: this.privateJwks.get(set) ?? [] };
  }

  secret(name: string): Uint8Array {
    const secret = this.secrets.get(name);
    if (!secret) throw new Error(`no server secret "${name}" provisioned`);
    return secret;
  }

  private save(stored: StoredKeys): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(stored, null, 2), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}

async function newPrivateJwk(alg: SigningAlg): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, alg, use: 'sig', kid: await calculateJwkThumbprint(jwk) };
}

async function toSigningKey(jwk: JWK): Promise<SigningKey> {
  const alg = jwk.alg as SigningAlg;
  const { d, p, q, dp, dq, qi, ...pub } = jwk;
  void d; void p; void q; void dp; void dq; void qi;
  return {
    kid: jwk.kid!,
    alg,
    privateKey: (await importJWK(jwk, alg)) as SigningKey['privateKey'],
    publicKey: (await importJWK(pub, alg)) as SigningKey['publicKey'],
    publicJwk: pub,
  };
}
