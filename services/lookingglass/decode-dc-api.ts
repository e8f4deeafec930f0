import { calculateJwkThumbprint, decodeProtectedHeader, type JWK } from 'jose';
import { dcApiSessionTranscript } from '../credentials/mdoc/session-transcript.ts';
import { encodeCbor } from '../credentials/mdoc/cbor.ts';
import { verifyDeviceResponse } from '../credentials/mdoc/verify.ts';
import { splitSdJwt } from '../credentials/sd-jwt/serialization.ts';
import {
  decodeTransactionData,
  TransactionDataError,
  transactionView,
  type TransactionEntry,
} from '../credentials/transaction-data.ts';
import { decodeJwtClaims } from '../crypto/decode-jwt.ts';
import { oauthError } from '../errors.ts';
import { transactionDataReasons, type TransactionBinding } from '../verifier/transaction-data-rule.ts';
import type { JwtDecoding } from './decode-jwt.ts';

const invalid = (detail: string) => oauthError('invalid_credential', detail);
const PROTOCOLS = ['openid4vp-v1-unsigned', 'openid4vp-v1-signed'];
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** What decoding needs from the looking glass: its JWT decoder (signature verdicts) and mdoc trust. */
export interface DcApiDecodeContext {
  decodeJwt(token: string): Promise<JwtDecoding>;
  trustAnchorsPem: string[];
  nowS: number;
}

/** The request as a page passed it: the `digital` argument, one `{protocol, data}`, or `data` alone. */
function requestData(request: unknown): { protocol?: string; data: Record<string, unknown> } {
  let value = request;
  if (isObject(value) && Array.isArray(value.requests))
    value = value.requests.find((r) => isObject(r) && PROTOCOLS.includes(String(r.protocol))) ?? value.requests[0];
  if (isObject(value) && isObject(value.data))
    return { protocol: typeof value.protocol === 'string' ? value.protocol : undefined, data: value.data };
  if (isObject(value)) return { data: value };
  throw invalid('request must be the digital argument, a {protocol, data} request, or its data');
}

/** Transaction data entries decoded, or why they cannot be. */
function transactions(value: unknown): { entries: TransactionEntry[]; error?: string } {
  if (value === undefined) return { entries: [] };
  try {
    return { entries: decodeTransactionData(value) };
  } catch (error) {
    if (error instanceof TransactionDataError) return { entries: [], error: error.message };
    throw error;
  }
}

/** The KB-JWT of an SD-JWT VC presentation, its payload only (its signature is the verifier's to check). */
function keyBinding(presentation: unknown): Record<string, unknown> | undefined {
  if (typeof presentation !== 'string' || !presentation.includes('~')) return undefined;
  try {
    const kb = splitSdJwt(presentation).kbJwt;
    return kb ? decodeJwtClaims(kb) : undefined;
  } catch {
    return undefined;
  }
}

/** One presentation of an answer as the looking glass shows it. */
export interface PresentationView {
  credential_query_id: string;
  index: number;
  format: string;
  detail?: string;
  aud?: unknown;
  aud_is_origin?: boolean | null;
  nonce_matches?: boolean | null;
  transaction_data_hashes?: unknown;
  transaction_data_hashes_alg?: unknown;
  handover?: {
    type: string;
    info: { origin: string; nonce: string; jwk_thumbprint: string | null };
    hash: string;
    session_transcript: string;
  };
  device_signature?: { verified: boolean; check?: string; detail: string };
}

interface Binding {
  origin?: string;
  nonce?: string;
  encryptionJwk?: JWK;
}

/** One presentation of the vp_token: its audience and nonce (SD-JWT VC) or its handover (mdoc), checked. */
async function presentationView(
  queryId: string,
  index: number,
  item: unknown,
  binding: Binding,
  ctx: DcApiDecodeContext,
) {
  const kb = keyBinding(item);
  const audience = binding.origin !== undefined ? `origin:${binding.origin}` : undefined;
  if (kb)
    return {
      credential_query_id: queryId,
      index,
      format: 'dc+sd-jwt',
      aud: kb.aud,
      aud_is_origin: audience === undefined ? null : kb.aud === audience,
      nonce_matches: binding.nonce === undefined ? null : kb.nonce === binding.nonce,
      ...(kb.transaction_data_hashes !== undefined ? { transaction_data_hashes: kb.transaction_data_hashes } : {}),
      ...(kb.transaction_data_hashes_alg !== undefined
        ? { transaction_data_hashes_alg: kb.transaction_data_hashes_alg }
        : {}),
    };
  if (typeof item !== 'string' || !/^[A-Za-z0-9_-]+$/.test(item))
    return { credential_query_id: queryId, index, format: 'unknown', detail: 'neither an SD-JWT VC nor an mdoc' };
  if (binding.origin === undefined || binding.nonce === undefined)
    return {
      credential_query_id: queryId,
      index,
      format: 'mso_mdoc',
      detail: 'the handover needs the origin and the nonce',
    };
  const thumbprint = binding.encryptionJwk
    ? Buffer.from(await calculateJwkThumbprint(binding.encryptionJwk), 'base64url').toString('hex')
    : null;
  const transcript = await dcApiSessionTranscript({
    origin: binding.origin,
    nonce: binding.nonce,
    ...(binding.encryptionJwk ? { encryptionKey: binding.encryptionJwk } : {}),
  });
  const handover = transcript[2] as [string, Uint8Array];
  const verified = await verifyDeviceResponse(Buffer.from(item, 'base64url'), {
    trustedRoots: ctx.trustAnchorsPem,
    now: ctx.nowS,
    sessionTranscript: transcript,
  });
  return {
    credential_query_id: queryId,
    index,
    format: 'mso_mdoc',
    handover: {
      type: handover[0],
      info: { origin: binding.origin, nonce: binding.nonce, jwk_thumbprint: thumbprint },
      hash: Buffer.from(handover[1]).toString('hex'),
      session_transcript: Buffer.from(encodeCbor(transcript)).toString('hex'),
    },
    device_signature: verified.valid
      ? { verified: true, detail: 'The device signature verifies over this OpenID4VPDCAPIHandover' }
      : { verified: false, check: verified.check, detail: verified.reason },
  };
}

/** Transaction data against the key bindings' hashes, with the verifier's own rule (OpenID4VP 1.0 §8.4). */
function transactionVerdict(entries: TransactionEntry[], presentations: PresentationView[]) {
  const bindings: TransactionBinding[] = presentations
    .filter((p) => p.transaction_data_hashes !== undefined)
    .map((p) => ({
      queryId: p.credential_query_id,
      presentation: p.index,
      hashes: p.transaction_data_hashes,
      alg: p.transaction_data_hashes_alg,
    }));
  if (entries.length === 0 && bindings.length === 0) return undefined;
  const reasons = transactionDataReasons(
    entries.map((e) => e.encoded),
    bindings,
  );
  return reasons.length === 0
    ? { verdict: 'bound', detail: 'Every transaction is bound by exactly one credential it names' }
    : { verdict: 'not bound', detail: reasons[0].reason };
}

/**
 * A Digital Credentials API exchange decoded (OpenID4VP 1.0 Appendix A): the request (signed or not,
 * its expected_origins and transaction data), the origin and whether it was expected, and the answer:
 * each presentation's audience and nonce, or its OpenID4VPDCAPIHandover, and the transaction binding.
 * An encrypted answer (dc_api.jwt) shows its header only: the key is the verifier's.
 */
export async function decodeDcApi(
  input: { request: unknown; response?: unknown; origin?: unknown },
  ctx: DcApiDecodeContext,
) {
  const { protocol, data } = requestData(input.request);
  const signed = typeof data.request === 'string';
  const requestObject = signed ? await ctx.decodeJwt(data.request as string) : undefined;
  const params = requestObject ? requestObject.payload : data;
  const origin = typeof input.origin === 'string' ? input.origin : undefined;
  const expected = Array.isArray(params.expected_origins) ? (params.expected_origins as unknown[]) : undefined;
  const { entries, error } = transactions(params.transaction_data);
  const metadata = params.client_metadata as { jwks?: { keys?: JWK[] } } | undefined;
  const binding: Binding = {
    ...(origin !== undefined ? { origin } : {}),
    ...(typeof params.nonce === 'string' ? { nonce: params.nonce } : {}),
    ...(params.response_mode === 'dc_api.jwt' && metadata?.jwks?.keys?.[0]
      ? { encryptionJwk: metadata.jwks.keys[0] }
      : {}),
  };
  const answer = isObject(input.response) && isObject(input.response.data) ? input.response.data : input.response;
  const presentations: PresentationView[] = [];
  let encrypted: Record<string, unknown> | undefined;
  if (isObject(answer) && typeof answer.response === 'string') {
    try {
      encrypted = {
        header: decodeProtectedHeader(answer.response),
        detail: 'Encrypted to the verifier: only its key opens it',
      };
    } catch {
      encrypted = { detail: 'response is not a JWE' };
    }
  } else if (isObject(answer) && isObject(answer.vp_token)) {
    for (const [queryId, list] of Object.entries(answer.vp_token))
      for (const [index, item] of (Array.isArray(list) ? list : []).slice(0, 20).entries())
        presentations.push(await presentationView(queryId, index, item, binding, ctx));
  }
  return {
    format: 'dc_api',
    reference: 'OpenID4VP 1.0 Appendix A',
    request: {
      protocol: protocol ?? (signed ? 'openid4vp-v1-signed' : 'openid4vp-v1-unsigned'),
      signed,
      ...(requestObject ? { signature: requestObject.signature } : {}),
      ...(params.client_id !== undefined && signed ? { client_id: params.client_id } : {}),
      response_mode: params.response_mode,
      nonce: params.nonce,
      ...(expected ? { expected_origins: expected } : {}),
      ...(entries.length ? { transaction_data: entries.map(transactionView) } : {}),
      ...(error ? { transaction_data_error: error } : {}),
    },
    ...(origin !== undefined
      ? {
          origin,
          audience: `origin:${origin}`,
          origin_expected: expected ? expected.includes(origin) : null,
        }
      : {}),
    ...(input.response !== undefined
      ? {
          response: {
            ...(isObject(answer) && answer.error !== undefined ? { error: answer.error } : {}),
            ...(encrypted ? { encrypted } : {}),
            presentations,
          },
        }
      : {}),
    ...(input.response !== undefined && !encrypted ? { transactions: transactionVerdict(entries, presentations) } : {}),
  };
}
