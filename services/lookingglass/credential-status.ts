import { decodeJwtClaims } from '../crypto/decode-jwt.ts';
import type { StatusChecker } from '../status/check.ts';
import { bitstringReferencesOf, outcomeView, tokenReferences, type References } from '../status/references.ts';

/** The status references a decoded credential carries (its status claim, MSO status or credentialStatus). */
export function referencesOf(input: unknown, decoded: Record<string, unknown>): References {
  if (decoded.format === 'mso_mdoc') return tokenReferences(decoded.status_reference);
  if (decoded.format === 'ldp_vc' && input && typeof input === 'object') return bitstringReferencesOf(input as never);
  const text = typeof input === 'string' ? input.trim() : '';
  if (decoded.format === 'ldp_vc' && text.startsWith('{')) return bitstringReferencesOf(JSON.parse(text));
  if (typeof decoded.format !== 'string' || !/^(dc\+sd-jwt|jwt_vc_json(-ld)?)$/.test(decoded.format)) return [];
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwtClaims(text.split('~')[0]);
  } catch {
    return [];
  }
  if (decoded.format === 'dc+sd-jwt') return tokenReferences(claims.status);
  const vc = claims.vc;
  return vc && typeof vc === 'object' ? bitstringReferencesOf(vc as Record<string, unknown>) : [];
}

/**
 * A credential's current status, as the looking glass shows it: each reference resolved by the origin's
 * checker (our issuer's lists in process, any other origin through the outbound guard), with the list
 * checks that held and, when a list cannot be had or trusted, why.
 */
export async function currentStatus(references: References, checker: StatusChecker) {
  if (references === 'malformed')
    return { references: [], detail: 'the credential has a status reference that cannot be read' };
  const resolved = [];
  for (const reference of references) {
    const outcome = await checker.check(reference);
    resolved.push({
      ...outcomeView(outcome),
      checks_held: outcome.held,
      ...(outcome.failure ? { reason: outcome.failure.reason } : {}),
    });
  }
  return {
    references: resolved,
    detail:
      'Resolved now (draft-ietf-oauth-status-list §8.3; Bitstring Status List §3.2): VALID, INVALID (revoked), SUSPENDED; a list that cannot be fetched or trusted says nothing.',
  };
}
