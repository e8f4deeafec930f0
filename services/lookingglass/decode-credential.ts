import type { JWK } from 'jose';
import { OAuthError } from '../errors.ts';
import { MAX_NESTING, withinNesting } from '../untrusted/depth.ts';
import { decodeJwt, parseCompactJws, type KnownIssuerKeys } from './decode-jwt.ts';
import { decodeMdoc, looksLikeMdoc } from './decode-mdoc.ts';
import { decodeSdJwt, looksLikeSdJwt } from './decode-sd-jwt.ts';
import { describeTime } from './time.ts';

const invalid = (detail: string) => new OAuthError('invalid_credential', detail);

/** Detects the format of a credential (string or JSON object) and decodes it. */
export async function decodeCredential(input: unknown, options: { jwks?: { keys: JWK[] }; known: KnownIssuerKeys; nowMs: number }) {
  if (!withinNesting(input)) throw invalid(`a credential must not nest deeper than ${MAX_NESTING} levels`);
  if (input && typeof input === 'object' && !Array.isArray(input)) return decodeJsonVc(input as Record<string, unknown>, options.nowMs);
  if (typeof input !== 'string' || input.trim() === '') throw invalid('credential must be a non-empty string or a JSON object');
  const text = input.trim();
  if (text.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalid('credential looks like JSON but does not parse');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid('a JSON credential must be an object');
    if (!withinNesting(parsed)) throw invalid(`a credential must not nest deeper than ${MAX_NESTING} levels`);
    return decodeJsonVc(parsed as Record<string, unknown>, options.nowMs);
  }
  if (looksLikeSdJwt(text)) return decodeSdJwt(text, options);
  if (text.split('.').length === 3) {
    const { payload } = parseCompactJws(text);
    if (!payload.vc && !payload.vp) throw invalid('this JWT carries no vc or vp claim: decode it with /api/lookingglass/decode');
    const jwt = await decodeJwt(text, options);
    const body = (payload.vc ?? payload.vp) as Record<string, unknown>;
    const context = body['@context'];
    return {
      format: context ? 'jwt_vc_json-ld' : 'jwt_vc_json',
      claims: (body.credentialSubject ?? body.verifiableCredential ?? body) as unknown,
      issuer_signature: jwt.signature,
      holder_binding: { sub: payload.sub, cnf: payload.cnf, detail: payload.cnf ? 'Bound to the key in cnf' : payload.sub ? 'Subject identified by sub (usually a DID)' : 'No holder binding' },
      validity: validity(payload, options.nowMs),
      header: jwt.header,
      payload: jwt.payload,
      warnings: jwt.warnings,
    };
  }
  if (looksLikeMdoc(text)) return decodeMdoc(text, options);
  throw invalid('unrecognised credential: expected an SD-JWT, a JWT VC, an mdoc (CBOR as base64url or hex) or a W3C JSON credential');
}

function validity(payload: Record<string, unknown>, nowMs: number) {
  const out: Record<string, unknown> = {};
  for (const k of ['iat', 'nbf', 'exp']) if (typeof payload[k] === 'number') out[k] = describeTime(payload[k] as number, nowMs);
  const now = nowMs / 1000;
  out.state = typeof payload.exp === 'number' && payload.exp <= now ? 'expired' : typeof payload.nbf === 'number' && payload.nbf > now ? 'not yet valid' : 'valid';
  return out;
}

/** A W3C JSON-LD credential with an embedded proof (`ldp_vc`). */
function decodeJsonVc(vc: Record<string, unknown>, nowMs: number) {
  const types = Array.isArray(vc.type) ? vc.type : [vc.type];
  if (!vc['@context'] || !types.includes('VerifiableCredential')) throw invalid('a W3C credential needs @context and type VerifiableCredential');
  const proof = vc.proof as Record<string, unknown> | undefined;
  const from = (vc.validFrom ?? vc.issuanceDate) as string | undefined;
  const until = (vc.validUntil ?? vc.expirationDate) as string | undefined;
  const state = until && Date.parse(until) <= nowMs ? 'expired' : from && Date.parse(from) > nowMs ? 'not yet valid' : 'valid';
  return {
    format: 'ldp_vc',
    claims: vc.credentialSubject,
    issuer: vc.issuer,
    types,
    issuer_signature: {
      verified: false,
      proof_type: proof?.type,
      cryptosuite: proof?.cryptosuite,
      verification_method: proof?.verificationMethod,
      detail: proof ? 'Data Integrity proof found; it is described here, not verified (that needs RDF canonicalization and the issuer key)' : 'No proof: this credential is unsigned',
    },
    holder_binding: { detail: 'credentialSubject.id names the holder, when present', id: (vc.credentialSubject as Record<string, unknown> | undefined)?.id },
    validity: { valid_from: from, valid_until: until, state },
    warnings: proof ? [] : ['no proof'],
  };
}
