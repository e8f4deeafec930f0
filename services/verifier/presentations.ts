import type { JWK } from 'jose';
import type { DisclosedPresentation } from '../../machines/presentation.ts';
import { storedFromMdoc, storedFromSdJwt, storedFromW3c } from '../credentials/dcql/from-verified.ts';
import type { StoredCredential } from '../credentials/dcql/types.ts';
import { mdocValueAsJson } from '../credentials/mdoc/json.ts';
import { dcApiSessionTranscript, oid4vpSessionTranscript } from '../credentials/mdoc/session-transcript.ts';
import { verifyDeviceResponse } from '../credentials/mdoc/verify.ts';
import { NEVER_DISCLOSABLE } from '../credentials/sd-jwt/types.ts';
import { MDOC_TRANSACTION_NAMESPACE } from '../credentials/transaction-data.ts';
import { verifySdJwtVc } from '../credentials/sd-jwt/verify.ts';
import { verifyJwtVp } from '../credentials/w3c/jwt-vc.ts';
import { verifyLdpVp } from '../credentials/w3c/ldp-vc.ts';
import { decodeJwtClaims } from '../crypto/decode-jwt.ts';
import { held, withCheckTrail } from '../credentials/result.ts';
import type { StatusChecker } from '../status/check.ts';
import { bitstringReferencesOf, tokenReferences, type References } from '../status/references.ts';
import type { CredentialTrust } from './settings.ts';
import { checkStatuses } from './status-rule.ts';

/** Everything a presentation is checked against: the request it answers and whom we trust. */
export interface PresentationContext {
  /** The request's client_id (bound into the redirect handover); empty for an unsigned DC API request. */
  clientId: string;
  /** Whom key bindings must name: the client_id, or over the DC API `origin:<origin>` (Appendix A.4). */
  audience: string;
  /** DC API answers: the browser's origin (the mdoc handover is then OpenID4VPDCAPIHandover). */
  origin?: string;
  nonce: string;
  responseUri: string;
  /** direct_post.jwt: the verifier's encryption key, bound into the mdoc handover. */
  encryptionJwk?: JWK;
  now: number;
  trust: CredentialTrust;
  /** Resolves credentials' status references (docs/status.md); without it no status is checked. */
  status?: StatusChecker;
}

/** One verified credential out of a presentation. */
export interface Presented {
  stored: StoredCredential;
  disclosed: DisclosedPresentation;
  /** Its status references, checked once the presentation itself holds. */
  references: References;
  /** What its key binding (SD-JWT VC) or device signature (mdoc) said of transaction data, if anything. */
  transactions?: { hashes: unknown; alg: unknown };
}
export type PresentationOutcome = { ok: true; credentials: Presented[] } | { ok: false; check: string; reason: string };

/** One check the verifier ran on a presentation, and how it went. */
export interface CheckVerdict {
  check: string;
  verdict: 'passed' | 'failed';
}

/** How long a key-binding proof (KB-JWT, VP JWT) may be old. */
const FRESHNESS_S = 300;
const fail = (check: string, reason: string): PresentationOutcome => ({ ok: false, check, reason });

/** A codec check name as the result document reports it: a malformed presentation is `vp_token`. */
const reportedCheck = (check: string, format: string) =>
  check === 'format' ? 'vp_token' : format === 'mso_mdoc' && check === 'signature' ? 'issuer_signature' : check;

/** Claims a holder did not choose to show (registered JWT and SD-JWT VC members) stay out of the result. */
const TECHNICAL_CLAIMS = new Set([...NEVER_DISCLOSABLE, 'jti']);
const userClaims = (claims: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(claims).filter(([name]) => !TECHNICAL_CLAIMS.has(name)));

/** The SD-JWT VC rule: our issuer's signature, disclosures, then the KB-JWT (aud = client_id, nonce, 300 s, sd_hash). */
async function checkSdJwtVc(presentation: unknown, id: string, ctx: PresentationContext): Promise<PresentationOutcome> {
  if (typeof presentation !== 'string') return fail('vp_token', 'an SD-JWT VC presentation is a string');
  const tilde = presentation.indexOf('~');
  const issuerJwt = tilde < 0 ? presentation : presentation.slice(0, tilde);
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwtClaims(issuerJwt);
  } catch {
    return fail('vp_token', 'the presentation does not start with an issuer-signed JWT');
  }
  if (claims.iss !== ctx.trust.issuer)
    return fail('trust', `the issuer ${JSON.stringify(claims.iss)} is not one this verifier trusts`);
  held('trust');
  const result = await verifySdJwtVc(presentation, {
    issuerJwks: ctx.trust.jwks(),
    now: ctx.now,
    expectedIssuer: ctx.trust.issuer,
    keyBinding: { aud: ctx.audience, nonce: ctx.nonce, maxAge: FRESHNESS_S },
    decodedIssuerJwt: { jwt: issuerJwt, claims },
  });
  if (!result.valid) return fail(reportedCheck(result.check, 'dc+sd-jwt'), result.reason);
  const kb = result.keyBinding?.claims ?? {};
  const saysTransactions = kb.transaction_data_hashes !== undefined || kb.transaction_data_hashes_alg !== undefined;
  return {
    ok: true,
    credentials: [
      {
        stored: storedFromSdJwt(id, result),
        disclosed: { format: 'dc+sd-jwt', issuer: String(result.payload.iss), claims: userClaims(result.claims) },
        references: tokenReferences(result.payload.status),
        ...(saysTransactions
          ? { transactions: { hashes: kb.transaction_data_hashes, alg: kb.transaction_data_hashes_alg } }
          : {}),
      },
    ],
  };
}

/** The mdoc rule: a DeviceResponse chaining to a trusted IACA, digests, validity, device signature over our handover. */
async function checkMdoc(presentation: unknown, id: string, ctx: PresentationContext): Promise<PresentationOutcome> {
  if (typeof presentation !== 'string' || !/^[A-Za-z0-9_-]+$/.test(presentation))
    return fail('vp_token', 'an mdoc presentation is a base64url DeviceResponse');
  const encryption = ctx.encryptionJwk ? { encryptionKey: ctx.encryptionJwk } : {};
  const sessionTranscript =
    ctx.origin !== undefined
      ? await dcApiSessionTranscript({ origin: ctx.origin, nonce: ctx.nonce, ...encryption })
      : await oid4vpSessionTranscript({
          clientId: ctx.clientId,
          nonce: ctx.nonce,
          responseUri: ctx.responseUri,
          ...encryption,
        });
  const result = await verifyDeviceResponse(Buffer.from(presentation, 'base64url'), {
    trustedRoots: ctx.trust.iacaRoots,
    now: ctx.now,
    sessionTranscript,
  });
  if (!result.valid) return fail(reportedCheck(result.check, 'mso_mdoc'), result.reason);
  return {
    ok: true,
    credentials: result.documents.map((doc, i) => {
      // Transaction hashes signed by the device key (docs/decisions.md: the namespace of the binding).
      const signed = doc.deviceSigned?.[MDOC_TRANSACTION_NAMESPACE];
      return {
        stored: storedFromMdoc(`${id}.${i}`, doc),
        disclosed: { format: 'mso_mdoc', issuer: doc.signer.subject, claims: mdocValueAsJson(doc.claims) },
        references: tokenReferences(doc.status),
        ...(signed
          ? { transactions: { hashes: signed.transaction_data_hashes, alg: signed.transaction_data_hashes_alg } }
          : {}),
      };
    }),
  };
}

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
async function checkJwtVp(
  presentation: unknown,
  id: string,
  format: 'jwt_vc_json' | 'jwt_vc_json-ld',
  ctx: PresentationContext,
): Promise<PresentationOutcome> {
  if (typeof presentation !== 'string') return fail('vp_token', 'a VP JWT presentation is a string');
  const result = await verifyJwtVp(presentation, {
    now: ctx.now,
    aud: ctx.audience,
    nonce: ctx.nonce,
    maxAge: FRESHNESS_S,
    format,
  });
  if (!result.valid) return fail(reportedCheck(result.check, format), result.reason);
  return w3cOutcome(
    result.credentials.map((c) => c.credential as Record<string, unknown>),
    id,
    format,
    ctx,
  );
}

/** A verified W3C presentation's credentials: each from a trusted issuer, at least one. */
function w3cOutcome(
  credentials: Record<string, unknown>[],
  id: string,
  format: Parameters<typeof storedFromW3c>[1],
  ctx: PresentationContext,
): PresentationOutcome {
  const untrusted = untrustedIssuer(credentials, ctx);
  if (untrusted !== undefined)
    return fail('trust', `the issuer ${JSON.stringify(untrusted)} is not one this verifier trusts`);
  held('trust');
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
async function checkLdpVp(presentation: unknown, id: string, ctx: PresentationContext): Promise<PresentationOutcome> {
  if (!presentation || typeof presentation !== 'object' || Array.isArray(presentation))
    return fail('vp_token', 'an ldp_vc presentation is a JSON object');
  const result = await verifyLdpVp(presentation as Record<string, never>, {
    now: ctx.now,
    challenge: ctx.nonce,
    domain: ctx.audience,
  });
  if (!result.valid) return fail(reportedCheck(result.check, 'ldp_vc'), result.reason);
  return w3cOutcome(result.credentials as Record<string, unknown>[], id, 'ldp_vc', ctx);
}

/** Verifies one presentation of the vp_token by the format its credential query asked for. */
async function checkByFormat(
  format: string,
  presentation: unknown,
  id: string,
  ctx: PresentationContext,
): Promise<PresentationOutcome> {
  try {
    switch (format) {
      case 'dc+sd-jwt':
        return await checkSdJwtVc(presentation, id, ctx);
      case 'mso_mdoc':
        return await checkMdoc(presentation, id, ctx);
      case 'jwt_vc_json':
      case 'jwt_vc_json-ld':
        return await checkJwtVp(presentation, id, format, ctx);
      case 'ldp_vc':
        return await checkLdpVp(presentation, id, ctx);
      default:
        return fail('vp_token', `the format ${format} is not supported`);
    }
  } catch (error) {
    // The codec layer names its failures; anything it did not foresee is still the presentation's fault.
    return fail('vp_token', `the presentation could not be read (${(error as Error).name})`);
  }
}

/**
 * One presentation verified, with every check it went through in order: those that held, then the
 * one that failed (checks after a failure do not run).
 */
export async function checkPresentation(
  format: string,
  presentation: unknown,
  id: string,
  ctx: PresentationContext,
): Promise<PresentationOutcome & { checks: CheckVerdict[] }> {
  const { value: outcome, held: trail } = await withCheckTrail(() => checkByFormat(format, presentation, id, ctx));
  const passed = [...new Set(trail.map((check) => reportedCheck(check, format)))].filter(
    (check) => outcome.ok || check !== outcome.check,
  );
  const checks: CheckVerdict[] = passed.map((check) => ({ check, verdict: 'passed' }));
  if (!outcome.ok) checks.push({ check: outcome.check, verdict: 'failed' });
  if (!outcome.ok || !ctx.status) return { ...outcome, checks };
  const status = await checkStatuses(
    outcome.credentials.map((c) => c.references),
    ctx.status,
  );
  checks.push(...status.checks);
  const credentials = outcome.credentials.map((c, i) =>
    status.views[i]?.length ? { ...c, disclosed: { ...c.disclosed, status: status.views[i] } } : c,
  );
  if (status.failure) return { ok: false, ...status.failure, checks };
  return { ok: true, credentials, checks };
}
