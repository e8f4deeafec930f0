import {
  compactVerify,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  type ProtectedHeaderParameters,
} from 'jose';
import { jwtAuthorities, knownTrustDomains } from './bundle.ts';
import type { WorkloadApiSession } from './ports.ts';
import { parseSpiffeId } from './spiffe-id.ts';

/**
 * JWT-SVID validation (JWT-SVID standard §2-§4): a JWS whose protected header has only alg (one of
 * the standard's list), kid and typ (JWT or JOSE); `sub` a SPIFFE ID of a trust domain whose JWT
 * bundle we hold; signature verified with that bundle (jose); `aud` containing the validator's
 * audience; `exp` present and in the future. Every check is run and reported, so the verdict says
 * all that is wrong at once.
 */
export interface Check {
  check: string;
  ok: boolean;
  detail: string;
}

export interface JwtVerdict {
  valid: boolean;
  spiffe_id?: string;
  trust_domain?: string;
  audience: string;
  header?: ProtectedHeaderParameters;
  claims?: JWTPayload;
  checks: Check[];
  /** The details of the failed checks. */
  reasons: string[];
}

const JWT_SVID_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];
/** JWT-SVID §2: no header members but these. */
const HEADER_MEMBERS = new Set(['alg', 'kid', 'typ']);

const verdict = (audience: string, checks: Check[], extra: Partial<JwtVerdict> = {}): JwtVerdict => ({
  valid: checks.every((c) => c.ok),
  audience,
  ...extra,
  checks,
  reasons: checks.filter((c) => !c.ok).map((c) => `${c.check}: ${c.detail}`),
});

function signatureFailure(error: unknown, kid: unknown): string {
  if (error instanceof errors.JWKSNoMatchingKey)
    return `no key of the bundle matches kid ${JSON.stringify(kid ?? null)}`;
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'the signature does not verify with the bundle key (altered or forged token)';
  if (error instanceof errors.JWKSMultipleMatchingKeys) return 'several bundle keys match and none verifies';
  return `the signature could not be verified: ${(error as Error).message}`;
}

export async function validateJwtSvid(
  session: WorkloadApiSession,
  input: { token: string; audience: string; now: number },
): Promise<JwtVerdict> {
  const { token, audience, now } = input;
  const checks: Check[] = [];
  let header: ProtectedHeaderParameters;
  let claims: JWTPayload;
  try {
    if (token.split('.').length !== 3) throw new Error('not three dot-separated parts');
    header = decodeProtectedHeader(token);
    claims = decodeJwt(token);
  } catch (error) {
    checks.push({
      check: 'format',
      ok: false,
      detail: `not a JWS compact serialization with a JSON claims set (${(error as Error).message})`,
    });
    return verdict(audience, checks);
  }
  checks.push({ check: 'format', ok: true, detail: 'JWS compact serialization with a JSON claims set' });

  const alg = header.alg;
  const algOk = typeof alg === 'string' && JWT_SVID_ALGORITHMS.includes(alg);
  const typOk = header.typ === undefined || header.typ === 'JWT' || header.typ === 'JOSE';
  const extra = Object.keys(header).filter((k) => !HEADER_MEMBERS.has(k));
  checks.push({
    check: 'header',
    ok: algOk && typOk && extra.length === 0,
    detail: !algOk
      ? `alg ${JSON.stringify(alg ?? null)} is not one the JWT-SVID standard allows (${JWT_SVID_ALGORITHMS.join(', ')})`
      : !typOk
        ? `typ ${JSON.stringify(header.typ)} is neither JWT nor JOSE`
        : extra.length > 0
          ? `header members other than alg, kid and typ are not allowed: ${extra.join(', ')}`
          : `alg ${alg}${header.typ ? `, typ ${header.typ}` : ''}`,
  });

  const sub = parseSpiffeId(typeof claims.sub === 'string' ? claims.sub : '');
  checks.push({
    check: 'spiffe_id',
    ok: sub.ok,
    detail: sub.ok
      ? `sub is the SPIFFE ID ${sub.value.id}`
      : `sub ${JSON.stringify(claims.sub ?? null)} is not a SPIFFE ID: ${sub.reason}`,
  });

  let bundle: JSONWebKeySet | undefined;
  const trustDomain = sub.ok ? sub.value.trustDomain : undefined;
  if (trustDomain) {
    const keys = jwtAuthorities(session, trustDomain);
    const known = knownTrustDomains(session);
    if (keys.length > 0) {
      bundle = { keys: keys as JSONWebKeySet['keys'] };
      checks.push({
        check: 'trust_domain',
        ok: true,
        detail: `${trustDomain} is a trust domain whose JWT bundle the agent provides (${keys.length} key(s))`,
      });
    } else {
      checks.push({
        check: 'trust_domain',
        ok: false,
        detail: `${trustDomain} is a foreign trust domain: no JWT bundle for it (known: ${known.join(', ') || 'none'})`,
      });
    }
  } else {
    checks.push({ check: 'trust_domain', ok: false, detail: 'no trust domain without a SPIFFE ID in sub' });
  }

  if (bundle && algOk) {
    try {
      await compactVerify(token, createLocalJWKSet(bundle), { algorithms: JWT_SVID_ALGORITHMS });
      checks.push({
        check: 'signature',
        ok: true,
        detail: `verified with key ${JSON.stringify(header.kid ?? null)} of the ${trustDomain} JWT bundle`,
      });
    } catch (error) {
      checks.push({ check: 'signature', ok: false, detail: signatureFailure(error, header.kid) });
    }
  } else {
    checks.push({
      check: 'signature',
      ok: false,
      detail: bundle
        ? 'not verified: the algorithm is not allowed'
        : "not verified: no JWT bundle for the token's trust domain",
    });
  }

  const aud = claims.aud === undefined ? [] : Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  checks.push({
    check: 'audience',
    ok: aud.includes(audience),
    detail:
      aud.length === 0
        ? 'the token has no aud claim (required)'
        : aud.includes(audience)
          ? `aud contains ${audience}`
          : `aud ${JSON.stringify(aud)} does not contain ${audience}`,
  });

  const nowSeconds = Math.floor(now / 1000);
  if (typeof claims.exp !== 'number') {
    checks.push({ check: 'expiry', ok: false, detail: 'the token has no numeric exp claim (required)' });
  } else {
    const left = claims.exp - nowSeconds;
    checks.push({
      check: 'expiry',
      ok: left > 0,
      detail:
        left > 0
          ? `expires in ${left} s (${new Date(claims.exp * 1000).toISOString()})`
          : `expired ${-left} s ago (${new Date(claims.exp * 1000).toISOString()})`,
    });
  }
  if (claims.nbf !== undefined) {
    const ok = typeof claims.nbf === 'number' && claims.nbf <= nowSeconds;
    checks.push({
      check: 'not_before',
      ok,
      detail: ok ? 'nbf has passed' : `nbf ${JSON.stringify(claims.nbf)} is not yet reached`,
    });
  }

  return verdict(audience, checks, {
    ...(sub.ok ? { spiffe_id: sub.value.id, trust_domain: sub.value.trustDomain } : {}),
    header,
    claims,
  });
}
