import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, unwatchFile, watchFile, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { KeyRing, SigningAlg, SigningKey } from '../../services/keys.ts';

type StoredKeys = Record<string, JWK[]>;

/** Key sets whose private keys are demo material, published on purpose (e.g. `published:pkjwt-app`). */
const PUBLISHED_PREFIX = 'published:';
/** Server secrets, stored as symmetric (`oct`) JWKs beside the signing keys. */
const SECRET_PREFIX = 'secret:';
/** Secrets every service may ask for; each is created on first start. */
const SECRETS = [
  'user-code',
  'c-nonce',
  'oid4vp-state',
  'dpop-nonce',
  'internal-caller',
  'offer-code',
  'ssf-push-header',
  'pairwise-subject',
  'ssf-txn',
  'fingerprint',
];

/** How often instances sharing the key file look for a rotation. */
const WATCH_INTERVAL_MS = 1_000;
/** Keys per set and alg kept after a rotation: the new one signs, the previous one still verifies. */
const KEPT_PER_ALG = 2;

/**
 * Signing keys kept in `keys.json` (mode 0600; `KEYS_FILE`, by default under DATA_DIR), created on
 * first start. Every requested set/alg pair is provisioned by `open` before the services start, so
 * lookups afterwards are synchronous. The newest key of a set and alg signs; every key listed verifies
 * (by `kid`). Instances sharing the file see a rotation (`npm run rotate-keys`) within a second.
 */
export class FileKeyRing implements KeyRing {
  private keys = new Map<string, SigningKey[]>();
  private privateJwks = new Map<string, JWK[]>();
  private secrets = new Map<string, Uint8Array>();

  private constructor(private readonly file: string) {}

  static async open(file: string, wanted: ReadonlyArray<[set: string, alg: SigningAlg]>): Promise<FileKeyRing> {
    const ring = new FileKeyRing(file);
    const stored = readStored(file);
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
    if (changed) saveStored(file, stored);
    await ring.load(stored);
    return ring;
  }

  /** Reloads the file whenever it changes (another instance or `rotate-keys` wrote it); returns the stop. */
  watch(): () => void {
    const reload = () => void this.load(readStored(this.file)).catch(() => undefined); // a half-read file: keep what we have
    watchFile(this.file, { interval: WATCH_INTERVAL_MS, persistent: false }, reload);
    return () => unwatchFile(this.file, reload);
  }

  private async load(stored: StoredKeys): Promise<void> {
    const keys = new Map<string, SigningKey[]>();
    const privateJwks = new Map<string, JWK[]>();
    const secrets = new Map<string, Uint8Array>();
    for (const [set, jwks] of Object.entries(stored)) {
      if (set.startsWith(SECRET_PREFIX)) {
        secrets.set(set.slice(SECRET_PREFIX.length), Buffer.from(jwks[0].k!, 'base64url'));
        continue;
      }
      keys.set(set, await Promise.all(jwks.map(toSigningKey)));
      if (set.startsWith(PUBLISHED_PREFIX)) privateJwks.set(set, jwks);
    }
    [this.keys, this.privateJwks, this.secrets] = [keys, privateJwks, secrets];
  }

  signing(set: string, alg: SigningAlg = 'ES256'): SigningKey {
    const key = (this.keys.get(set) ?? []).filter((k) => k.alg === alg).at(-1);
    if (!key) throw new Error(`no ${alg} signing key provisioned for "${set}"`);
    return key;
  }

  verificationKey(set: string, alg: SigningAlg, kid: string | undefined): SigningKey | undefined {
    return this.keys.get(set)?.find((k) => k.alg === alg && (kid === undefined || k.kid === kid));
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
}

function readStored(file: string): StoredKeys {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as StoredKeys) : {};
}

/** Written to a temporary file and renamed, so a reader never sees half a file. */
function saveStored(file: string, stored: StoredKeys): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(stored, null, 2), { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * Adds a fresh key for every alg of each signing set named (all of them when none is), keeping the
 * previous one so tokens it signed still verify; demo clients' published keys and server secrets stay.
 * Returns the sets rotated.
 */
export async function rotateKeys(file: string, sets: readonly string[] = []): Promise<string[]> {
  const stored = readStored(file);
  const rotatable = Object.keys(stored).filter(
    (set) => !set.startsWith(SECRET_PREFIX) && !set.startsWith(PUBLISHED_PREFIX),
  );
  const chosen = sets.length > 0 ? [...sets] : rotatable;
  for (const set of chosen) {
    if (!rotatable.includes(set)) throw new Error(`no signing key set "${set}" in ${file}`);
    const algs = [...new Set(stored[set].map((k) => k.alg as SigningAlg))];
    for (const alg of algs) stored[set].push(await newPrivateJwk(alg));
    stored[set] = stored[set].filter(
      (k, i, all) => all.slice(i).filter((later) => later.alg === k.alg).length <= KEPT_PER_ALG,
    );
  }
  saveStored(file, stored);
  return chosen;
}

async function newPrivateJwk(alg: SigningAlg): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, {
    extractable: true,
    ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}),
  });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, alg, use: 'sig', kid: await calculateJwkThumbprint(jwk) };
}

async function toSigningKey(jwk: JWK): Promise<SigningKey> {
  const alg = jwk.alg as SigningAlg;
  const { d, p, q, dp, dq, qi, ...pub } = jwk;
  void d;
  void p;
  void q;
  void dp;
  void dq;
  void qi;
  return {
    kid: jwk.kid!,
    alg,
    // Extractable: node:crypto signs with it synchronously, and Node 24 deprecates converting a non-extractable one (DEP0204).
    privateKey: (await importJWK(jwk, alg, { extractable: true })) as SigningKey['privateKey'],
    publicKey: (await importJWK(pub, alg)) as SigningKey['publicKey'],
    publicJwk: pub,
  };
}
