/**
 * A pre-authorized OID4VCI issuer built from the peer libraries, for `npm run bench -- issuer`: the
 * token endpoint from @openid4vc/oauth2's Oauth2AuthorizationServer, credential requests parsed and
 * proofs verified by @openid4vc/openid4vci's Openid4vciIssuer, SD-JWT VCs from @sd-jwt/sd-jwt-vc and
 * mdocs from @auth0/mdl. It does the work ours does per flow (offer, token, nonce, proof check, one
 * credential) with in-memory state. Run as its own process: prints `listening <url>`.
 */
import 'reflect-metadata';
import { Document, MDoc } from '@auth0/mdl';
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { Oauth2AuthorizationServer, clientAuthenticationAnonymous, type Jwk, type JwtSigner } from '@openid4vc/oauth2';
import { Openid4vciClient, Openid4vciIssuer } from '@openid4vc/openid4vci';
import { setGlobalConfig } from '@openid4vc/utils';
import Fastify from 'fastify';
import formbody from '@fastify/formbody';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { SignJWT, compactVerify, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, jwtVerify } from 'jose';
import { createDocumentSigner, createIacaRoot } from '../../../services/credentials/mdoc/index.ts';

setGlobalConfig({ allowInsecureUrls: true });
const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: p } = probe.address() as { port: number };
    probe.close(() => resolve(p));
  });
});
const app = Fastify({ logger: false });
await app.register(formbody);
const base = `http://127.0.0.1:${port}`;
const issuer = `${base}/oid4vci`;

const issuerKeys = await generateKeyPair('ES256', { extractable: true });
const issuerPublic = { ...(await exportJWK(issuerKeys.publicKey)), kid: 'peer-1', alg: 'ES256' } as Jwk;
const issuerPrivate = await exportJWK(issuerKeys.privateKey);
const DAY = 86_400_000;
const iaca = await createIacaRoot({ notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + 365 * DAY) });
const ds = await createDocumentSigner({ iaca, notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + 365 * DAY) });
const dsPrivate = await exportJWK(ds.privateKey);

const callbacks = {
  hash: (data: Uint8Array, alg: string) => new Uint8Array(createHash(alg.replace('-', '').toLowerCase()).update(data).digest()),
  generateRandom: (n: number) => new Uint8Array(randomBytes(n)),
  clientAuthentication: clientAuthenticationAnonymous(),
  signJwt: async (signer: JwtSigner, { header, payload }: { header: Record<string, unknown>; payload: Record<string, unknown> }) => {
    const jwt = await new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256', kid: 'peer-1' } as never).sign(issuerKeys.privateKey);
    return { jwt, signerJwk: (signer as { publicJwk?: Jwk }).publicJwk ?? issuerPublic };
  },
  verifyJwt: async (signer: JwtSigner, { compact }: { compact: string }) => {
    try {
      const jwk = signer.method === 'jwk' ? signer.publicJwk : issuerPublic;
      await compactVerify(compact, await importJWK(jwk as never, signer.alg));
      return { verified: true as const, signerJwk: jwk };
    } catch {
      return { verified: false as const };
    }
  },
};
const as = new Oauth2AuthorizationServer({ callbacks: callbacks as never });
const vci = new Openid4vciIssuer({ callbacks: callbacks as never });
const sdjwt = new SDJwtVcInstance({ signer: await ES256.getSigner(issuerPrivate), signAlg: 'ES256', hasher: digest, hashAlg: 'sha-256', saltGenerator: generateSalt });

const configurations = {
  UniversityDegreeCredential: { format: 'dc+sd-jwt', vct: `${issuer}/credential-types/university-degree`, scope: 'vc:university_degree', cryptographic_binding_methods_supported: ['jwk'], credential_signing_alg_values_supported: ['ES256'], proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } } },
  MobileDrivingLicenceMsoMdoc: { format: 'mso_mdoc', doctype: 'org.iso.18013.5.1.mDL', scope: 'vc:mdl', cryptographic_binding_methods_supported: ['cose_key'], credential_signing_alg_values_supported: [-7], proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } } },
};
const asMetadata = as.createAuthorizationServerMetadata({ issuer, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`, 'pre-authorized_grant_anonymous_access_supported': true } as never);
const credentialIssuerMetadata = vci.createCredentialIssuerMetadata({ credential_issuer: issuer, credential_endpoint: `${issuer}/credential`, nonce_endpoint: `${issuer}/nonce`, credential_configurations_supported: configurations } as never);
app.get('/.well-known/openid-credential-issuer/oid4vci', async () => credentialIssuerMetadata);
app.get('/.well-known/oauth-authorization-server/oid4vci', async () => asMetadata);
app.get('/oid4vci/jwks', async () => ({ keys: [issuerPublic] }));

const codes = new Map<string, string[]>();
const nonces = new Set<string>();
const requestOf = (request: { headers: Record<string, unknown>; method: string; url: string }) => ({ headers: new Headers(Object.entries(request.headers).filter(([, v]) => typeof v === 'string') as [string, string][]), method: request.method as 'POST', url: `${base}${request.url}` });

app.post('/oid4vci/offers', async (request, reply) => {
  const ids = ((request.body as { credential_configuration_ids?: string[] }).credential_configuration_ids ?? ['UniversityDegreeCredential']);
  const code = randomBytes(24).toString('base64url');
  codes.set(code, ids);
  const { credentialOffer } = await vci.createCredentialOffer({ issuerMetadata: issuerMetadataResult(), credentialConfigurationIds: ids, grants: { 'urn:ietf:params:oauth:grant-type:pre-authorized_code': { 'pre-authorized_code': code } } } as never);
  return reply.code(201).send({ offer_url: credentialOffer, pre_authorized_code: code });
});

app.post('/oid4vci/token', async (request) => {
  const req = requestOf(request);
  const parsed = as.parseAccessTokenRequest({ request: req, accessTokenRequest: request.body as Record<string, unknown> });
  const code = (parsed.grant as { preAuthorizedCode: string }).preAuthorizedCode;
  const ids = codes.get(code);
  if (!ids) throw new Error('unknown code');
  await as.verifyPreAuthorizedCodeAccessTokenRequest({ authorizationServerMetadata: asMetadata, grant: parsed.grant as never, accessTokenRequest: parsed.accessTokenRequest, request: req, expectedPreAuthorizedCode: code });
  codes.delete(code);
  return as.createAccessTokenResponse({ authorizationServer: issuer, audience: issuer, expiresInSeconds: 300, signer: { method: 'jwk', alg: 'ES256', publicJwk: issuerPublic }, subject: 'alice', scope: ids.map((id) => configurations[id as keyof typeof configurations].scope).join(' ') });
});

app.post('/oid4vci/nonce', async () => {
  const cNonce = randomBytes(16).toString('base64url');
  nonces.add(cNonce);
  return vci.createNonceResponse({ cNonce, cNonceExpiresIn: 300 });
});

let metadataResult: Awaited<ReturnType<Openid4vciClient['resolveIssuerMetadata']>>;
const issuerMetadataResult = () => metadataResult;

app.post('/oid4vci/credential', async (request) => {
  const token = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
  await jwtVerify(token, issuerKeys.publicKey, { issuer, audience: issuer });
  const parsed = vci.parseCredentialRequest({ issuerMetadata: metadataResult, credentialRequest: request.body as Record<string, unknown> });
  const jwt = (parsed.proofs as { jwt?: string[] } | undefined)?.jwt?.[0] ?? (request.body as { proofs: { jwt: string[] } }).proofs.jwt[0];
  const nonce = (JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as { nonce: string }).nonce;
  if (!nonces.delete(nonce)) throw new Error('unknown nonce');
  const verified = await vci.verifyCredentialRequestJwtProof({ issuerMetadata: metadataResult, jwt, expectedNonce: nonce, nonceExpiresAt: new Date(Date.now() + 300_000) });
  const holder = (verified.signer as { publicJwk: Jwk }).publicJwk ?? (decodeProtectedHeader(jwt).jwk as Jwk);
  const id = (request.body as { credential_configuration_id: string }).credential_configuration_id;
  let credential: string;
  if (id === 'MobileDrivingLicenceMsoMdoc') {
    const now = Date.now();
    const signed = await new Document('org.iso.18013.5.1.mDL')
      .addIssuerNameSpace('org.iso.18013.5.1', { family_name: 'Anderson', given_name: 'Alice', birth_date: '1990-04-12', issue_date: '2026-01-01', expiry_date: '2031-01-01', issuing_country: 'FR', issuing_authority: 'Demo', document_number: 'PD-1', age_over_18: true, age_over_21: true, un_distinguishing_sign: 'F', portrait: new Uint8Array(10) })
      .useDigestAlgorithm('SHA-256')
      .addValidityInfo({ signed: new Date(now), validFrom: new Date(now), validUntil: new Date(now + 180 * DAY) })
      .addDeviceKeyInfo({ deviceKey: holder as never })
      .sign({ issuerPrivateKey: dsPrivate, issuerCertificate: ds.pem, alg: 'ES256' });
    credential = Buffer.from(new MDoc([signed]).encode()).toString('base64url');
  } else {
    const now = Math.floor(Date.now() / 1000);
    credential = await sdjwt.issue(
      { iss: issuer, vct: configurations.UniversityDegreeCredential.vct, iat: now, exp: now + 86_400, cnf: { jwk: holder }, given_name: 'Alice', family_name: 'Anderson', degree: 'Bachelor of Science', department: 'Computer Science', graduation_year: 2012 } as never,
      { _sd: ['given_name', 'family_name', 'degree', 'department', 'graduation_year'] } as never,
    );
  }
  return vci.createCredentialResponse({ credentialRequest: parsed, credentials: [{ credential }], notificationId: randomBytes(16).toString('base64url') } as never);
});

app.setErrorHandler((error, _request, reply) => reply.code(400).send({ error: 'invalid_request', error_description: (error as Error).message }));
await app.listen({ host: '127.0.0.1', port });
metadataResult = await new Openid4vciClient({ callbacks: callbacks as never }).resolveIssuerMetadata(issuer);
console.log(`listening ${base}`);
