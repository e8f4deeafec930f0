/**
 * An OID4VP verifier built from the peer libraries, for `npm run bench -- verifier` and the interop
 * tests: requests and responses through @openid4vc/openid4vp's Openid4vpVerifier (direct_post, or
 * direct_post.jwt with an ephemeral ECDH-ES key per request decrypted by jose; redirect_uri client id;
 * or dc_api, answered with the browser's origin at /oid4vp/dc-api/{id}/response), presentations
 * checked by peer-presentations.ts, transaction data by the library, DCQL by `dcql`. State in
 * memory. It trusts the issuer at PORTICO_URL (its JWKS and IACA), like ours. Prints `listening <url>`.
 */
import 'reflect-metadata';
import { Openid4vpVerifier } from '@openid4vc/openid4vp';
import { setGlobalConfig } from '@openid4vc/utils';
import { DcqlPresentationResult, DcqlQuery } from 'dcql';
import Fastify from 'fastify';
import formbody from '@fastify/formbody';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { compactDecrypt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK } from 'jose';
import { loadToolSettings } from '../../../adapters/config.ts';
import { hash, presentationChecks, type TransactionHashes } from './peer-presentations.ts';

setGlobalConfig({ allowInsecureUrls: true });
const portico = loadToolSettings().porticoUrl!;
const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: p } = probe.address() as { port: number };
    probe.close(() => resolve(p));
  });
});
const base = `http://127.0.0.1:${port}`;
const responseUri = `${base}/oid4vp/response`;
const clientId = `redirect_uri:${responseUri}`;
const verifyPresentation = await presentationChecks(portico);

const callbacks = {
  hash,
  generateRandom: (n: number) => new Uint8Array(randomBytes(n)),
  signJwt: () => {
    throw new Error('unsigned requests only');
  },
  verifyJwt: () => {
    throw new Error('unsigned responses only');
  },
  decryptJwe: async (jwe: string) => {
    const kid = decodeProtectedHeader(jwe).kid;
    const key = [...requests.values()].find((r) => r.encryption?.publicJwk.kid === kid)?.encryption;
    if (!key) return { decrypted: false };
    const { plaintext } = await compactDecrypt(jwe, key.privateKey);
    return { decrypted: true, decryptionJwk: key.publicJwk, payload: new TextDecoder().decode(plaintext) };
  },
  encryptJwe: () => {
    throw new Error('the verifier never encrypts');
  },
};
const openid4vp = new Openid4vpVerifier({ callbacks: callbacks as never });

type Encryption = { publicJwk: JWK & { kid: string }; privateKey: CryptoKey };
type Request = {
  payload: Record<string, any>;
  /** A Digital Credentials API request: answered through the browser, with its origin. */
  dcApi?: boolean;
  query: ReturnType<typeof DcqlQuery.parse>;
  encryption?: Encryption;
  result?: Record<string, unknown>;
};

/** A fresh ECDH-ES P-256 key for one request's encrypted response. */
async function responseEncryptionKey(kid: string): Promise<Encryption> {
  const { publicKey, privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256' });
  return {
    publicJwk: { ...(await exportJWK(publicKey)), kid, use: 'enc', alg: 'ECDH-ES' },
    privateKey: privateKey as CryptoKey,
  };
}
const requests = new Map<string, Request>();

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
await app.register(formbody);

app.post('/oid4vp/request/create', async (request, reply) => {
  const body = (request.body ?? {}) as { dcql_query?: unknown; response_mode?: string; transaction_data?: unknown[] };
  const state = Buffer.from(randomBytes(16)).toString('base64url');
  const nonce = Buffer.from(randomBytes(24)).toString('base64url');
  const query = DcqlQuery.parse(body.dcql_query as never);
  DcqlQuery.validate(query);
  if (body.response_mode === 'dc_api') return createDcApiRequest(body, state, nonce, query, reply);
  const encrypted = body.response_mode === 'direct_post.jwt';
  const encryption = encrypted ? await responseEncryptionKey(`${state}.enc`) : undefined;
  const clientMetadata = {
    vp_formats_supported: { 'dc+sd-jwt': {}, mso_mdoc: {} },
    ...(encryption
      ? { jwks: { keys: [encryption.publicJwk] }, encrypted_response_enc_values_supported: ['A256GCM'] }
      : {}),
  };
  const created = await openid4vp.createOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: {
      response_type: 'vp_token',
      client_id: clientId,
      response_mode: encrypted ? 'direct_post.jwt' : 'direct_post',
      response_uri: responseUri,
      nonce,
      state,
      dcql_query: body.dcql_query as never,
      client_metadata: clientMetadata,
      // OpenID4VP 1.0 §5.1: each entry base64url-encoded JSON.
      ...(body.transaction_data
        ? { transaction_data: body.transaction_data.map((e) => Buffer.from(JSON.stringify(e)).toString('base64url')) }
        : {}),
    } as never,
  });
  requests.set(state, { payload: created.authorizationRequestPayload as Record<string, any>, query, encryption });
  return reply.code(201).send({
    request_id: state,
    state,
    nonce,
    client_id: clientId,
    response_uri: responseUri,
    authorization_request_uri: created.authorizationRequest,
    result_uri: `${base}/oid4vp/result/${state}`,
  });
});

/** OpenID4VP 1.0 Appendix A: an unsigned request for the browser's Digital Credentials API. */
async function createDcApiRequest(
  body: { dcql_query?: unknown },
  state: string,
  nonce: string,
  query: ReturnType<typeof DcqlQuery.parse>,
  reply: import('fastify').FastifyReply,
) {
  const payload = {
    response_type: 'vp_token',
    response_mode: 'dc_api',
    nonce,
    dcql_query: body.dcql_query,
    client_metadata: { vp_formats_supported: { 'dc+sd-jwt': {}, mso_mdoc: {} } },
  };
  requests.set(state, { payload, query, dcApi: true });
  return reply.code(201).send({
    request_id: state,
    nonce,
    digital: { requests: [{ protocol: 'openid4vp-v1-unsigned', data: payload }] },
    dc_api_response_uri: `${base}/oid4vp/dc-api/${state}/response`,
    result_uri: `${base}/oid4vp/result/${state}`,
  });
}

app.post('/oid4vp/response', async (request, reply) => {
  const body = request.body as Record<string, unknown>;
  const pending =
    typeof body.response === 'string' ? requestOfEncryptedResponse(body.response) : requests.get(String(body.state));
  if (!pending || pending.result || pending.dcApi)
    return reply.code(400).send({ error: 'invalid_request', error_description: 'unknown or answered state' });
  if (pending.encryption && typeof body.response !== 'string')
    return reply.code(400).send({ error: 'invalid_request', error_description: 'an encrypted response was requested' });
  await judge(pending, body);
  return {};
});

/** Appendix A.4: what the browser returned, with the origin it reported. */
app.post('/oid4vp/dc-api/:id/response', async (request, reply) => {
  const pending = requests.get((request.params as { id: string }).id);
  const body = request.body as { origin?: string; data?: Record<string, unknown> };
  if (!pending?.dcApi || pending.result || typeof body.origin !== 'string' || !body.data)
    return reply.code(400).send({ error: 'invalid_request', error_description: 'unknown or answered request' });
  await judge(pending, body.data, body.origin);
  return {};
});

/** The answer parsed by the library, each presentation verified, the DCQL verdict kept as the result. */
async function judge(pending: Request, body: Record<string, unknown>, origin?: string): Promise<void> {
  const parsed = await openid4vp.parseOpenid4vpAuthorizationResponse({
    authorizationResponse: body,
    authorizationRequestPayload: pending.payload as never,
    callbacks: callbacks as never,
    ...(origin !== undefined ? { origin } : {}),
  } as never);
  if (!('dcql' in parsed) || !parsed.dcql) throw new Error('the peer parsed no DCQL response');
  const vpToken: Record<string, unknown[]> = parsed.dcql.presentations;
  try {
    const record: Record<string, unknown[]> = {};
    const transactionHashes: TransactionHashes = {};
    for (const [id, list] of Object.entries(vpToken)) {
      const format = pending.query.credentials.find((c) => c.id === id)!.format;
      const hashes: TransactionHashes[string] = [];
      const binding = {
        nonce: pending.payload.nonce as string,
        clientId,
        responseUri,
        ...(pending.encryption ? { encryptionJwk: pending.encryption.publicJwk } : {}),
        ...(origin !== undefined ? { origin } : {}),
      };
      record[id] = await Promise.all(list.map((p) => verifyPresentation(format, String(p), binding, hashes)));
      // Only queries whose KB-JWTs carry hashes: the library takes an empty list as a match.
      if (hashes.length > 0) transactionHashes[id] = hashes;
    }
    // The library's own transaction data check: every entry matched by a hash of a credential it names.
    const transactionData = pending.payload.transaction_data as string[] | undefined;
    if (transactionData)
      await openid4vp.verifyTransactionData({
        transactionData,
        credentials: transactionHashes,
      } as never);
    const verdict = DcqlPresentationResult.fromDcqlPresentation(record as never, { dcqlQuery: pending.query });
    pending.result = { status: verdict.can_be_satisfied ? 'verified' : 'rejected' };
  } catch (error) {
    pending.result = { status: 'rejected', reason: (error as Error).message };
  }
}

/** The request whose encryption key an encrypted response names by `kid` (`<state>.enc`). */
function requestOfEncryptedResponse(jwe: string): Request | undefined {
  try {
    const kid = decodeProtectedHeader(jwe).kid;
    return typeof kid === 'string' && kid.endsWith('.enc') ? requests.get(kid.slice(0, -4)) : undefined;
  } catch {
    return undefined;
  }
}

app.get('/oid4vp/result/:id', async (request, reply) => {
  const found = requests.get((request.params as { id: string }).id);
  if (!found) return reply.code(404).send({ error: 'not_found' });
  return { request_id: (request.params as { id: string }).id, ...(found.result ?? { status: 'created' }) };
});

await app.listen({ host: '127.0.0.1', port });
console.log(`listening ${base}`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
