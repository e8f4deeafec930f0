import { compactVerify, createLocalJWKSet, importJWK, type JWK } from 'jose';
import { CheckFailed } from '../credentials/result.ts';
import {
  parseDisclosure,
  rebuildClaims,
  sdHashOf,
  splitSdJwt,
  type Disclosure as CodecDisclosure,
  type SdJwtParts,
} from '../credentials/sd-jwt/index.ts';
import { oauthError } from '../errors.ts';
import { parseCompactJws } from './decode-jwt.ts';
import { describeTime } from './time.ts';

interface Disclosure {
  disclosure: string;
  digest: string;
  salt: string;
  name?: string;
  value: unknown;
  /** Whether a digest in the issuer-signed payload (or a nested disclosure) references it. */
  referenced: boolean;
}

const invalid = (detail: string) => oauthError('invalid_credential', `Not a decodable SD-JWT: ${detail}`);

/** Runs a codec step, turning its plain or named-check failure into a 400 invalid_credential. */
function codec<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    throw invalid(error instanceof CheckFailed ? error.reason : (error as Error).message);
  }
}

export interface SdJwtDecoding {
  format: 'dc+sd-jwt';
  typ: string | undefined;
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  disclosures: Disclosure[];
  issuer_signature: { verified: boolean; detail: string };
  holder_binding: {
    cnf?: unknown;
    key_binding_jwt: boolean;
    verified?: boolean;
    detail: string;
    aud?: unknown;
    nonce?: unknown;
  };
  validity: Record<string, { date: string; relative: string }> & {
    state: 'valid' | 'expired' | 'not yet valid' | 'no time limits';
  };
  warnings: string[];
}

export function looksLikeSdJwt(text: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*~/.test(text.trim());
}

/** Decodes an SD-JWT (VC): digests recomputed and checked, claims rebuilt, key binding checked. */
export async function decodeSdJwt(
  text: string,
  options: { jwks?: { keys: JWK[] }; nowMs: number; jwksSource?: string },
): Promise<SdJwtDecoding> {
  const parts: SdJwtParts = codec(() => splitSdJwt(text));
  const { issuerJwt, kbJwt } = parts;
  const parsed = codec(() => parts.disclosures.map(parseDisclosure));
  const { header, payload } = parseCompactJws(issuerJwt);
  const warnings: string[] = [];
  const alg = payload._sd_alg ?? 'sha-256';
  if (alg !== 'sha-256') throw invalid(`unsupported _sd_alg ${String(alg)}`);
  // Lenient on purpose: unreferenced disclosures are shown and warned about, not refused.
  const { claims, unreferenced } = codec(() => rebuildClaims(payload, parsed, 'lenient'));
  const disclosures = parsed.map((d: CodecDisclosure): Disclosure => ({
    disclosure: d.encoded,
    digest: d.digest,
    salt: d.salt,
    ...(d.name === undefined ? {} : { name: d.name }),
    value: d.value,
    referenced: !unreferenced.includes(d),
  }));
  for (const d of disclosures)
    if (!d.referenced)
      warnings.push(`disclosure ${d.name ?? '(array element)'} is not referenced by any digest: it must be rejected`);
  const typ = typeof header.typ === 'string' ? header.typ : undefined;
  if (typ === 'vc+sd-jwt') warnings.push('typ vc+sd-jwt is the older name; dc+sd-jwt is current');
  else if (typ !== 'dc+sd-jwt') warnings.push(`typ is ${typ ?? 'missing'}, not dc+sd-jwt`);

  let issuer_signature = {
    verified: false,
    detail: 'No issuer key supplied: pass the issuer JWKS as "jwks" to verify',
  };
  if (options.jwks) {
    // Where the keys came from, in words: the caller's JWKS, or this origin's issuer keys.
    const source = options.jwksSource ?? 'the supplied JWKS';
    try {
      await compactVerify(issuerJwt, createLocalJWKSet(options.jwks));
      issuer_signature = { verified: true, detail: `Issuer signature verified with ${source}` };
    } catch {
      issuer_signature = { verified: false, detail: `The issuer signature does NOT verify with ${source}` };
    }
  }

  const cnf = payload.cnf as { jwk?: JWK } | undefined;
  let holder_binding: SdJwtDecoding['holder_binding'] = {
    ...(cnf ? { cnf } : {}),
    key_binding_jwt: false,
    detail: cnf
      ? 'Holder key present, but no key binding JWT was presented'
      : 'No holder binding (cnf) in the credential',
  };
  if (kbJwt) {
    const kb = parseCompactJws(kbJwt);
    const sdHash = sdHashOf(issuerJwt, parts.disclosures);
    let verified = false;
    let detail = 'Key binding JWT present but the credential has no cnf.jwk to check it';
    if (cnf?.jwk) {
      try {
        await compactVerify(kbJwt, await importJWK(cnf.jwk, String(kb.header.alg)));
        verified = kb.header.typ === 'kb+jwt' && kb.payload.sd_hash === sdHash;
        detail = verified
          ? 'Key binding JWT signed by cnf.jwk, and sd_hash covers this presentation'
          : kb.header.typ !== 'kb+jwt'
            ? 'typ is not kb+jwt'
            : 'sd_hash does not match the presented SD-JWT';
      } catch {
        detail = 'The key binding JWT is not signed by cnf.jwk';
      }
    }
    holder_binding = { cnf, key_binding_jwt: true, verified, detail, aud: kb.payload.aud, nonce: kb.payload.nonce };
  }

  const now = options.nowMs / 1000;
  const times: Record<string, { date: string; relative: string }> = {};
  for (const k of ['iat', 'nbf', 'exp'])
    if (typeof payload[k] === 'number') times[k] = describeTime(payload[k] as number, options.nowMs);
  const state =
    typeof payload.exp === 'number' && payload.exp <= now
      ? 'expired'
      : typeof payload.nbf === 'number' && payload.nbf > now
        ? 'not yet valid'
        : payload.exp === undefined
          ? 'no time limits'
          : 'valid';
  return {
    format: 'dc+sd-jwt',
    typ,
    header,
    claims,
    disclosures,
    issuer_signature,
    holder_binding,
    validity: { ...times, state } as SdJwtDecoding['validity'],
    warnings,
  };
}
