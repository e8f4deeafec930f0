import type { JWK } from 'jose';
import { OAuthError, oauthError } from '../errors.ts';
import { MAX_NESTING, withinNesting } from '../untrusted/depth.ts';
import { decodeJwt, parseCompactJws, type KnownIssuerKeys } from './decode-jwt.ts';
import { decodeMdoc, looksLikeMdoc } from './decode-mdoc.ts';
import { decodeSdJwt, looksLikeSdJwt } from './decode-sd-jwt.ts';
import { describeTime } from './time.ts';

const invalid = (detail: string) => oauthError('invalid_credential', detail);

type DecodeOptions = { jwks?: { keys: JWK[] }; known: KnownIssuerKeys; nowMs: number; jwksSource?: string };

/** An OpenID4VP vp_token (1.0 §8.1): a JSON object keyed by credential query id, each value an array of presentations. */
const isVpToken = (value: Record<string, unknown>) =>
  value['@context'] === undefined &&
  Object.keys(value).length > 0 &&
  Object.values(value).every((v) => Array.isArray(v) && v.length > 0);
const MAX_VP_TOKEN_PRESENTATIONS = 20;

/** Decodes each presentation of a vp_token with the credential decoders; a bad one is reported, not fatal. */
async function decodeVpToken(token: Record<string, unknown>, options: DecodeOptions) {
  const entries = Object.entries(token);
  if (entries.reduce((n, [, list]) => n + (list as unknown[]).length, 0) > MAX_VP_TOKEN_PRESENTATIONS)
    throw invalid(`a vp_token of more than ${MAX_VP_TOKEN_PRESENTATIONS} presentations is not decoded here`);
  const presentations: Array<{ credential_query_id: string; index: number; decoded?: unknown; error?: string }> = [];
  for (const [id, list] of entries) {
    for (const [index, item] of (list as unknown[]).entries()) {
      try {
        presentations.push({ credential_query_id: id, index, decoded: await decodeCredential(item, options) });
      } catch (error) {
        presentations.push({
          credential_query_id: id,
          index,
          error: error instanceof OAuthError ? error.description : 'could not be decoded',
        });
      }
    }
  }
  return {
    format: 'vp_token',
    reference: 'OpenID4VP 1.0 §8.1',
    detail:
      'A vp_token keyed by credential query id; each presentation is decoded below. Nonce and audience bindings are shown per presentation (KB-JWT, mdoc device signature, VP nonce/challenge); checking them needs the request.',
    presentations,
  };
}

/** Detects the format of a credential (string or JSON object) and decodes it. */
export async function decodeCredential(input: unknown, options: DecodeOptions): Promise<unknown> {
  if (!withinNesting(input)) throw invalid(`a credential must not nest deeper than ${MAX_NESTING} levels`);
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    return isVpToken(input as Record<string, unknown>)
      ? decodeVpToken(input as Record<string, unknown>, options)
      : decodeJsonVc(input as Record<string, unknown>, options.nowMs);
  }
  if (typeof input !== 'string' || input.trim() === '')
    throw invalid('credential must be a non-empty string or a JSON object');
  const text = input.trim();
  if (text.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalid('credential looks like JSON but does not parse');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw invalid('a JSON credential must be an object');
    if (!withinNesting(parsed)) throw invalid(`a credential must not nest deeper than ${MAX_NESTING} levels`);
    return isVpToken(parsed as Record<string, unknown>)
      ? decodeVpToken(parsed as Record<string, unknown>, options)
      : decodeJsonVc(parsed as Record<string, unknown>, options.nowMs);
  }
  if (looksLikeSdJwt(text)) return decodeSdJwt(text, options);
  if (text.split('.').length === 3) {
    const { payload } = parseCompactJws(text);
    if (!payload.vc && !payload.vp)
      throw invalid('this JWT carries no vc or vp claim: decode it with /api/lookingglass/decode');
    const jwt = await decodeJwt(text, options);
    const body = (payload.vc ?? payload.vp) as Record<string, unknown>;
    const context = body['@context'];
    return {
      format: context ? 'jwt_vc_json-ld' : 'jwt_vc_json',
      claims: (body.credentialSubject ?? body.verifiableCredential ?? body) as unknown,
      issuer_signature: jwt.signature,
      holder_binding: {
        sub: payload.sub,
        cnf: payload.cnf,
        detail: payload.cnf
          ? 'Bound to the key in cnf'
          : payload.sub
            ? 'Subject identified by sub (usually a DID)'
            : 'No holder binding',
      },
      validity: validity(payload, options.nowMs),
      header: jwt.header,
      payload: jwt.payload,
      warnings: jwt.warnings,
    };
  }
  if (looksLikeMdoc(text)) return decodeMdoc(text, options);
  throw invalid(
    'unrecognised credential: expected an SD-JWT, a JWT VC, an mdoc (CBOR as base64url or hex) or a W3C JSON credential',
  );
}

function validity(payload: Record<string, unknown>, nowMs: number) {
  const out: Record<string, unknown> = {};
  for (const k of ['iat', 'nbf', 'exp'])
    if (typeof payload[k] === 'number') out[k] = describeTime(payload[k] as number, nowMs);
  const now = nowMs / 1000;
  out.state =
    typeof payload.exp === 'number' && payload.exp <= now
      ? 'expired'
      : typeof payload.nbf === 'number' && payload.nbf > now
        ? 'not yet valid'
        : 'valid';
  return out;
}

/** A W3C JSON-LD credential with an embedded proof (`ldp_vc`). */
function decodeJsonVc(vc: Record<string, unknown>, nowMs: number) {
  const types = Array.isArray(vc.type) ? vc.type : [vc.type];
  if (!vc['@context'] || !types.includes('VerifiableCredential'))
    throw invalid('a W3C credential needs @context and type VerifiableCredential');
  const proof = vc.proof as Record<string, unknown> | undefined;
  const from = (vc.validFrom ?? vc.issuanceDate) as string | undefined;
  const until = (vc.validUntil ?? vc.expirationDate) as string | undefined;
  const state =
    until && Date.parse(until) <= nowMs ? 'expired' : from && Date.parse(from) > nowMs ? 'not yet valid' : 'valid';
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
      detail: proof
        ? 'Data Integrity proof found; it is described here, not verified (that needs RDF canonicalization and the issuer key)'
        : 'No proof: this credential is unsigned',
    },
    holder_binding: {
      detail: 'credentialSubject.id names the holder, when present',
      id: (vc.credentialSubject as Record<string, unknown> | undefined)?.id,
    },
    validity: { valid_from: from, valid_until: until, state },
    warnings: proof ? [] : ['no proof'],
  };
}
