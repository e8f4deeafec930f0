import { compactVerify, createLocalJWKSet, importJWK, type JWK } from 'jose';
import { createHash } from 'node:crypto';
import { OAuthError } from '../errors.ts';
import { parseCompactJws } from './decode-jwt.ts';
import { describeTime } from './time.ts';

export interface Disclosure {
  disclosure: string;
  digest: string;
  salt: string;
  name?: string;
  value: unknown;
  /** Whether a digest in the issuer-signed payload (or a nested disclosure) references it. */
  referenced: boolean;
}

const invalid = (detail: string) => new OAuthError('invalid_credential', `Not a decodable SD-JWT: ${detail}`);
const digestOf = (disclosure: string) => createHash('sha256').update(disclosure, 'ascii').digest('base64url');

function parseDisclosure(encoded: string): Disclosure {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw invalid('a disclosure is not base64url JSON');
  }
  if (!Array.isArray(parsed) || (parsed.length !== 2 && parsed.length !== 3) || typeof parsed[0] !== 'string') throw invalid('a disclosure must be [salt, name, value] or [salt, value]');
  if (parsed.length === 3 && typeof parsed[1] !== 'string') throw invalid('a disclosure name must be a string');
  return { disclosure: encoded, digest: digestOf(encoded), salt: parsed[0], ...(parsed.length === 3 ? { name: parsed[1] as string, value: parsed[2] } : { value: parsed[1] }), referenced: false };
}

/**
 * Rebuilds the claims from the issuer payload and the disclosures (RFC 9901 §7.1 steps 3-4): each `_sd`
 * digest is replaced by its disclosed claim, each `{"...": digest}` array element by its value.
 */
function reconstruct(value: unknown, byDigest: Map<string, Disclosure>, seen: Set<string>): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const element of value) {
      if (element && typeof element === 'object' && !Array.isArray(element) && Object.keys(element).length === 1 && '...' in element) {
        const d = byDigest.get(String((element as Record<string, unknown>)['...']));
        if (d && d.name === undefined) {
          if (seen.has(d.digest)) throw invalid('a digest is referenced twice');
          seen.add(d.digest);
          d.referenced = true;
          out.push(reconstruct(d.value, byDigest, seen));
        }
        continue; // undisclosed or decoy element
      }
      out.push(reconstruct(element, byDigest, seen));
    }
    return out;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    const obj = value as Record<string, unknown>;
    for (const [k, v] of Object.entries(obj)) if (k !== '_sd' && k !== '_sd_alg') out[k] = reconstruct(v, byDigest, seen);
    for (const digest of Array.isArray(obj._sd) ? obj._sd : []) {
      const d = byDigest.get(String(digest));
      if (!d || d.name === undefined) continue; // decoy or undisclosed
      if (seen.has(d.digest)) throw invalid('a digest is referenced twice');
      if (d.name in out) throw invalid(`disclosed claim "${d.name}" already exists in the payload`);
      seen.add(d.digest);
      d.referenced = true;
      out[d.name] = reconstruct(d.value, byDigest, seen);
    }
    return out;
  }
  return value;
}

export interface SdJwtDecoding {
  format: 'dc+sd-jwt';
  typ: string | undefined;
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  disclosures: Disclosure[];
  issuer_signature: { verified: boolean; detail: string };
  holder_binding: { cnf?: unknown; key_binding_jwt: boolean; verified?: boolean; detail: string; aud?: unknown; nonce?: unknown };
  validity: Record<string, { date: string; relative: string }> & { state: 'valid' | 'expired' | 'not yet valid' | 'no time limits' };
  warnings: string[];
}

export function looksLikeSdJwt(text: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*~/.test(text.trim());
}

/** Decodes an SD-JWT (VC): digests recomputed and checked, claims rebuilt, key binding checked. */
export async function decodeSdJwt(text: string, options: { jwks?: { keys: JWK[] }; nowMs: number }): Promise<SdJwtDecoding> {
  const parts = text.trim().split('~');
  const issuerJwt = parts[0];
  const kbJwt = parts[parts.length - 1] || undefined;
  const disclosures = parts.slice(1, -1).filter(Boolean).map(parseDisclosure);
  const { header, payload } = parseCompactJws(issuerJwt);
  const warnings: string[] = [];
  const alg = payload._sd_alg ?? 'sha-256';
  if (alg !== 'sha-256') throw invalid(`unsupported _sd_alg ${String(alg)}`);
  const byDigest = new Map(disclosures.map((d) => [d.digest, d]));
  if (byDigest.size !== disclosures.length) throw invalid('the same disclosure appears twice');
  const claims = reconstruct(payload, byDigest, new Set()) as Record<string, unknown>;
  for (const d of disclosures) if (!d.referenced) warnings.push(`disclosure ${d.name ?? '(array element)'} is not referenced by any digest: it must be rejected`);
  const typ = typeof header.typ === 'string' ? header.typ : undefined;
  if (typ === 'vc+sd-jwt') warnings.push('typ vc+sd-jwt is the older name; dc+sd-jwt is current');
  else if (typ !== 'dc+sd-jwt') warnings.push(`typ is ${typ ?? 'missing'}, not dc+sd-jwt`);

  let issuer_signature = { verified: false, detail: 'No issuer key supplied: pass the issuer JWKS as "jwks" to verify' };
  if (options.jwks) {
    try {
      await compactVerify(issuerJwt, createLocalJWKSet(options.jwks));
      issuer_signature = { verified: true, detail: 'Issuer signature verified with the supplied JWKS' };
    } catch {
      issuer_signature = { verified: false, detail: 'The issuer signature does NOT verify with the supplied JWKS' };
    }
  }

  const cnf = payload.cnf as { jwk?: JWK } | undefined;
  let holder_binding: SdJwtDecoding['holder_binding'] = { ...(cnf ? { cnf } : {}), key_binding_jwt: false, detail: cnf ? 'Holder key present, but no key binding JWT was presented' : 'No holder binding (cnf) in the credential' };
  if (kbJwt) {
    const kb = parseCompactJws(kbJwt);
    const sdHash = createHash('sha256').update(text.trim().slice(0, text.trim().length - kbJwt.length), 'ascii').digest('base64url');
    let verified = false;
    let detail = 'Key binding JWT present but the credential has no cnf.jwk to check it';
    if (cnf?.jwk) {
      try {
        await compactVerify(kbJwt, await importJWK(cnf.jwk, String(kb.header.alg)));
        verified = kb.header.typ === 'kb+jwt' && kb.payload.sd_hash === sdHash;
        detail = verified ? 'Key binding JWT signed by cnf.jwk, and sd_hash covers this presentation' : kb.header.typ !== 'kb+jwt' ? 'typ is not kb+jwt' : 'sd_hash does not match the presented SD-JWT';
      } catch {
        detail = 'The key binding JWT is not signed by cnf.jwk';
      }
    }
    holder_binding = { cnf, key_binding_jwt: true, verified, detail, aud: kb.payload.aud, nonce: kb.payload.nonce };
  }

  const now = options.nowMs / 1000;
  const times: Record<string, { date: string; relative: string }> = {};
  for (const k of ['iat', 'nbf', 'exp']) if (typeof payload[k] === 'number') times[k] = describeTime(payload[k] as number, options.nowMs);
  const state = typeof payload.exp === 'number' && payload.exp <= now ? 'expired' : typeof payload.nbf === 'number' && payload.nbf > now ? 'not yet valid' : payload.exp === undefined ? 'no time limits' : 'valid';
  return { format: 'dc+sd-jwt', typ, header, claims, disclosures, issuer_signature, holder_binding, validity: { ...times, state } as SdJwtDecoding['validity'], warnings };
}
