import { storedFromW3c } from '../credentials/dcql/from-verified.ts';
import type { CheckTrail } from '../credentials/result.ts';
import { verifyJwtVp } from '../credentials/w3c/jwt-vc.ts';
import { verifyLdpVp } from '../credentials/w3c/ldp-vc.ts';
import { bitstringReferencesOf } from '../status/references.ts';
import {
  fail,
  FRESHNESS_S,
  reportedCheck,
  type PresentationContext,
  type PresentationOutcome,
} from './presentation-outcome.ts';

/** The W3C presentation rules (VP JWT and Data Integrity VP), each credential from a trusted issuer. */

const issuerIdOf = (credential: Record<string, unknown>) => {
  const issuer = credential.issuer;
  return typeof issuer === 'string'
    ? issuer
    : issuer && typeof issuer === 'object'
      ? String((issuer as { id?: unknown }).id)
      : '';
};

/** The W3C trust rule: every credential of a presentation comes from our issuer's DID. */
function untrustedIssuer(credentials: Record<string, unknown>[], ctx: PresentationContext): string | undefined {
  const trusted = new Set(ctx.trust.w3cIssuers());
  return credentials.map(issuerIdOf).find((issuer) => !trusted.has(issuer));
}

const subjectClaims = (credential: Record<string, unknown>) => {
  const subject = credential.credentialSubject;
  return subject && typeof subject === 'object' && !Array.isArray(subject)
    ? Object.fromEntries(Object.entries(subject).filter(([name]) => name !== 'id'))
    : {};
};

/** The VP JWT rule (jwt_vc_json, jwt_vc_json-ld): holder signature, aud = client_id, nonce, freshness, each VC. */
export async function checkJwtVp(
  presentation: unknown,
  id: string,
  format: 'jwt_vc_json' | 'jwt_vc_json-ld',
  ctx: PresentationContext,
  trail: CheckTrail,
): Promise<PresentationOutcome> {
  if (typeof presentation !== 'string') return fail('vp_token', 'a VP JWT presentation is a string');
  const result = await verifyJwtVp(presentation, {
    now: ctx.now,
    aud: ctx.audience,
    nonce: ctx.nonce,
    maxAge: FRESHNESS_S,
    format,
    trail,
  });
  if (!result.valid) return fail(reportedCheck(result.check, format), result.reason);
  return w3cOutcome(
    result.credentials.map((c) => c.credential as Record<string, unknown>),
    id,
    format,
    ctx,
    trail,
  );
}

/** A verified W3C presentation's credentials: each from a trusted issuer, at least one. */
function w3cOutcome(
  credentials: Record<string, unknown>[],
  id: string,
  format: Parameters<typeof storedFromW3c>[1],
  ctx: PresentationContext,
  trail: CheckTrail,
): PresentationOutcome {
  const untrusted = untrustedIssuer(credentials, ctx);
  if (untrusted !== undefined)
    return fail('trust', `the issuer ${JSON.stringify(untrusted)} is not one this verifier trusts`);
  trail.held('trust');
  if (credentials.length === 0) return fail('vp_token', 'the presentation carries no credential');
  return {
    ok: true,
    credentials: credentials.map((c, i) => ({
      stored: storedFromW3c(`${id}.${i}`, format, c, true),
      disclosed: { format, issuer: issuerIdOf(c), claims: subjectClaims(c) },
      references: bitstringReferencesOf(c),
    })),
  };
}

/** The Data Integrity VP rule (ldp_vc): proof with challenge = nonce and domain = client_id, each VC. */
export async function checkLdpVp(
  presentation: unknown,
  id: string,
  ctx: PresentationContext,
  trail: CheckTrail,
): Promise<PresentationOutcome> {
  if (!presentation || typeof presentation !== 'object' || Array.isArray(presentation))
    return fail('vp_token', 'an ldp_vc presentation is a JSON object');
  const result = await verifyLdpVp(presentation as Record<string, never>, {
    now: ctx.now,
    challenge: ctx.nonce,
    domain: ctx.audience,
    trail,
  });
  if (!result.valid) return fail(reportedCheck(result.check, 'ldp_vc'), result.reason);
  return w3cOutcome(result.credentials as Record<string, unknown>[], id, 'ldp_vc', ctx, trail);
}
