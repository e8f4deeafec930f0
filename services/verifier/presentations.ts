import { storedFromMdoc, storedFromSdJwt } from '../credentials/dcql/from-verified.ts';
import { mdocValueAsJson } from '../credentials/mdoc/json.ts';
import { dcApiSessionTranscript, oid4vpSessionTranscript } from '../credentials/mdoc/session-transcript.ts';
import { verifyDeviceResponse } from '../credentials/mdoc/verify.ts';
import { NEVER_DISCLOSABLE } from '../credentials/sd-jwt/types.ts';
import { MDOC_TRANSACTION_NAMESPACE } from '../credentials/transaction-data.ts';
import { verifySdJwtVc } from '../credentials/sd-jwt/verify.ts';
import { decodeJwtClaims } from '../crypto/decode-jwt.ts';
import { CheckTrail } from '../credentials/result.ts';
import { tokenReferences } from '../status/references.ts';
import {
  fail,
  FRESHNESS_S,
  reportedCheck,
  type CheckVerdict,
  type PresentationContext,
  type PresentationOutcome,
} from './presentation-outcome.ts';
import { checkStatuses } from './status-rule.ts';
import { checkJwtVp, checkLdpVp } from './w3c-presentations.ts';

/** Claims a holder did not choose to show (registered JWT and SD-JWT VC members) stay out of the result. */
const TECHNICAL_CLAIMS = new Set([...NEVER_DISCLOSABLE, 'jti']);
const userClaims = (claims: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(claims).filter(([name]) => !TECHNICAL_CLAIMS.has(name)));

/** The SD-JWT VC rule: our issuer's signature, disclosures, then the KB-JWT (aud = client_id, nonce, 300 s, sd_hash). */
async function checkSdJwtVc(
  presentation: unknown,
  id: string,
  ctx: PresentationContext,
  trail: CheckTrail,
): Promise<PresentationOutcome> {
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
  trail.held('trust');
  const result = await verifySdJwtVc(presentation, {
    issuerJwks: ctx.trust.jwks(),
    now: ctx.now,
    expectedIssuer: ctx.trust.issuer,
    keyBinding: { aud: ctx.audience, nonce: ctx.nonce, maxAge: FRESHNESS_S },
    decodedIssuerJwt: { jwt: issuerJwt, claims },
    trail,
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
async function checkMdoc(
  presentation: unknown,
  id: string,
  ctx: PresentationContext,
  trail: CheckTrail,
): Promise<PresentationOutcome> {
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
    trail,
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

/** Verifies one presentation of the vp_token by the format its credential query asked for. */
async function checkByFormat(
  format: string,
  presentation: unknown,
  id: string,
  ctx: PresentationContext,
  trail: CheckTrail,
): Promise<PresentationOutcome> {
  try {
    switch (format) {
      case 'dc+sd-jwt':
        return await checkSdJwtVc(presentation, id, ctx, trail);
      case 'mso_mdoc':
        return await checkMdoc(presentation, id, ctx, trail);
      case 'jwt_vc_json':
      case 'jwt_vc_json-ld':
        return await checkJwtVp(presentation, id, format, ctx, trail);
      case 'ldp_vc':
        return await checkLdpVp(presentation, id, ctx, trail);
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
  const trail = new CheckTrail();
  const outcome = await checkByFormat(format, presentation, id, ctx, trail);
  const passed = [...new Set(trail.list().map((check) => reportedCheck(check, format)))].filter(
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
