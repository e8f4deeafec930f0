/**
 * An OID4VP verifier built from the peer libraries, for `npm run bench -- verifier`: requests and
 * responses through @openid4vc/openid4vp's Openid4vpVerifier (direct_post, or direct_post.jwt with an
 * ephemeral ECDH-ES key per request decrypted by jose; redirect_uri client id),
 * SD-JWT VCs verified by @sd-jwt/sd-jwt-vc (KB-JWT nonce, then aud checked on its output), mdocs by
 * @auth0/mdl's Verifier over an @owf/mdoc OpenID4VP session transcript, DCQL by `dcql`. State in
 * memory. It trusts the issuer at PORTICO_URL (its JWKS and IACA), like ours. Prints `listening <url>`.
 */
import 'reflect-metadata';
import { Verifier as MdlVerifier } from '@auth0/mdl';
import { SessionTranscript } from '@owf/mdoc';
import { Openid4vpVerifier } from '@openid4vc/openid4vp';
import { setGlobalConfig } from '@openid4vc/utils';
import { ES256, digest } from '@sd-jwt/crypto-nodejs';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { Tag, encode } from 'cbor-x';
import { DcqlPresentationResult, DcqlQuery } from 'dcql';
import Fastify from 'fastify';
import formbody from '@fastify/formbody';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import {
  calculateJwkThumbprint,
  compactDecrypt,
  compactVerify,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  type JWK,
} from 'jose';
import { loadToolSettings } from '../../../adapters/config.ts';

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
const issuerJwks = (await (await fetch(`${portico}/oid4vci/.well-known/jwks.json`)).json()) as { keys: JWK[] };
const iaca = await (await fetch(`${portico}/oid4vci/iaca.pem`)).text();
const keySet = createLocalJWKSet(issuerJwks);
const mdl = new MdlVerifier([iaca]);
const hash = (data: Uint8Array, alg: string) =>
  new Uint8Array(createHash(alg.replace('-', '').toLowerCase()).update(data).digest());
const owfCrypto = { crypto: { digest: ({ bytes }: { bytes: Uint8Array }) => hash(bytes, 'sha-256') } } as never;

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

/**
 * Status lists as our verifier reads them: fetched, verified and decoded once, then kept for the list's
 * `ttl` (default 300 s). The library's own `verifyStatus` fetches, verifies and decodes the list for every
 * presentation (decoding a 131,072-entry list alone costs about 13 ms), so the bench would measure that
 * rather than the verifier (issue 45 item 40). This does the same checks with the library's own
 * functions, once per list per ttl.
 */
const statusLists = new Map<string, { list: ReturnType<typeof getListFromStatusListJWT>; until: number }>();
async function cachedStatusCheck(result: { payload: Record<string, any> }): Promise<void> {
  const reference = result.payload.status?.status_list as { uri: string; idx: number } | undefined;
  if (!reference) return;
  let cached = statusLists.get(reference.uri);
  if (!cached || cached.until <= Date.now()) {
    const jwt = await (await fetch(reference.uri, { headers: { accept: 'application/statuslist+jwt' } })).text();
    await compactVerify(jwt, keySet);
    const ttl = (decodeJwt(jwt) as { ttl?: unknown }).ttl;
    cached = { list: getListFromStatusListJWT(jwt), until: Date.now() + (typeof ttl === 'number' ? ttl : 300) * 1000 };
    statusLists.set(reference.uri, cached);
  }
  if (cached.list.getStatus(reference.idx) !== 0) throw new Error('Status is not valid');
}

/** The issuer's signature over `data`, by a key of its JWKS. */
async function issuerSignature(data: string, signature: string): Promise<boolean> {
  try {
    await compactVerify(`${data}.${signature}`, keySet);
    return true;
  } catch {
    return false;
  }
}

/** The SD-JWT verifier: issuer key from the issuer's JWKS, KB-JWT verified with the cnf key, lists cached. */
const sdJwt = new SDJwtVcInstance({
  hasher: digest,
  hashAlg: 'sha-256',
  verifier: issuerSignature,
  kbVerifier: async (data: string, signature: string, payload: { cnf?: { jwk?: JWK } }) => {
    const jwk = payload?.cnf?.jwk;
    if (!jwk) return false;
    const verify = await ES256.getVerifier(jwk as never);
    return verify(data, signature);
  },
} as never);
// The library's verifyStatus is private in its types: replaced on the instance by the cached check above.
(sdJwt as unknown as { verifyStatus: typeof cachedStatusCheck }).verifyStatus = cachedStatusCheck;

type Encryption = { publicJwk: JWK & { kid: string }; privateKey: CryptoKey };
type Request = {
  payload: Record<string, any>;
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

/** What each presentation's KB-JWT said of transaction data, by credential query id (the library's input shape). */
type TransactionHashes = Record<
  string,
  Array<{ transaction_data_hashes: string[]; transaction_data_hashes_alg?: string }>
>;

/** One presentation checked by the libraries; returns the claims DCQL sees. */
async function verifyPresentation(
  format: string,
  presentation: string,
  request: Request,
  transactionHashes?: TransactionHashes[string],
): Promise<Record<string, unknown>> {
  if (format === 'dc+sd-jwt') {
    const verified = await sdJwt.verify(presentation, { keyBindingNonce: request.payload.nonce } as never);
    const kb = (verified as { kb?: { payload: Record<string, any> } }).kb;
    if (kb?.payload.aud !== clientId) throw new Error('aud');
    if (kb.payload.transaction_data_hashes)
      transactionHashes?.push({
        transaction_data_hashes: kb.payload.transaction_data_hashes,
        transaction_data_hashes_alg: kb.payload.transaction_data_hashes_alg,
      });
    return {
      credential_format: 'dc+sd-jwt',
      vct: (verified.payload as { vct: string }).vct,
      claims: verified.payload,
      cryptographic_holder_binding: true,
    };
  }
  const jwkThumbprint = request.encryption
    ? new Uint8Array(Buffer.from(await calculateJwkThumbprint(request.encryption.publicJwk), 'base64url'))
    : undefined;
  const transcript = await SessionTranscript.forOid4Vp(
    { clientId, nonce: request.payload.nonce, responseUri, jwkThumbprint },
    owfCrypto,
  );
  const mdoc = await mdl.verify(Buffer.from(presentation, 'base64url'), {
    encodedSessionTranscript: encode(new Tag(transcript.encode(), 24)),
  });
  const doc = mdoc.documents[0];
  const namespaces: Record<string, Record<string, unknown>> = {};
  for (const ns of doc.issuerSignedNameSpaces) namespaces[ns] = doc.getIssuerNameSpace(ns);
  return { credential_format: 'mso_mdoc', doctype: doc.docType, namespaces, cryptographic_holder_binding: true };
}

app.post('/oid4vp/response', async (request, reply) => {
  const body = request.body as Record<string, unknown>;
  const pending =
    typeof body.response === 'string' ? requestOfEncryptedResponse(body.response) : requests.get(String(body.state));
  if (!pending || pending.result)
    return reply.code(400).send({ error: 'invalid_request', error_description: 'unknown or answered state' });
  if (pending.encryption && typeof body.response !== 'string')
    return reply.code(400).send({ error: 'invalid_request', error_description: 'an encrypted response was requested' });
  const parsed = await openid4vp.parseOpenid4vpAuthorizationResponse({
    authorizationResponse: body,
    authorizationRequestPayload: pending.payload as never,
    callbacks: callbacks as never,
  });
  const vpToken = (parsed as unknown as { dcql: { presentations: Record<string, unknown[]> } }).dcql.presentations;
  try {
    const record: Record<string, unknown[]> = {};
    const transactionHashes: TransactionHashes = {};
    for (const [id, list] of Object.entries(vpToken)) {
      const format = pending.query.credentials.find((c) => c.id === id)!.format;
      const hashes: TransactionHashes[string] = [];
      record[id] = await Promise.all(list.map((p) => verifyPresentation(format, String(p), pending, hashes)));
      // Only queries whose KB-JWTs carry hashes: the library takes an empty list as a match.
      if (hashes.length > 0) transactionHashes[id] = hashes;
    }
    // The library's own transaction data check: every entry matched by a hash of a credential it names.
    if (pending.payload.transaction_data)
      await openid4vp.verifyTransactionData({
        transactionData: pending.payload.transaction_data,
        credentials: transactionHashes,
      } as never);
    const verdict = DcqlPresentationResult.fromDcqlPresentation(record as never, { dcqlQuery: pending.query });
    pending.result = { status: verdict.can_be_satisfied ? 'verified' : 'rejected' };
  } catch (error) {
    pending.result = { status: 'rejected', reason: (error as Error).message };
  }
  return {};
});

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
