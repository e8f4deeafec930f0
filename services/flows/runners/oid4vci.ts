import { isJsonObject, stringOf, memberAt } from '../../untrusted/json.ts';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { clientRequest } from '../../oauth/client-kit.ts';
import { signKeyProof } from '../../issuer/proofs.ts';
import { authorizeAsPerson } from './oauth-helpers.ts';
import { newPkcePair } from '../../oauth/client-kit.ts';
import { FlowFailure, expectStatus, stringIn, type FlowRunners, type RunContext } from '../registry.ts';

const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** What a wallet holds after an issuance: the credential and the key it is bound to. */
export interface HeldCredential {
  credential: string | Record<string, unknown>;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/**
 * The wallet's side of a pre-authorized issuance, every hop over HTTP and recorded; returns what the
 * wallet now holds (flows of other protocols start from it).
 */
export async function preAuthorized(
  run: RunContext,
  offerOptions: { tx_code?: boolean; deferred?: boolean },
  configuration = String(run.options.credential_configuration_id ?? 'UniversityDegreeCredential'),
): Promise<HeldCredential> {
  const created = await run.http.send(
    'Issuer creates a credential offer',
    `${run.base}/oid4vci/offers`,
    { json: { credential_configuration_ids: [configuration], ...offerOptions } },
    ['The issuer hands the wallet openid-credential-offer://?credential_offer_uri=... (a QR code or a link)'],
  );
  expectStatus(created.status, 201, 'offer');
  const offer = await run.http.send('Wallet dereferences the offer', stringIn(created, 'credential_offer_uri'), {}, [
    'OpenID4VCI §4.1.3: credential_offer_uri by GET',
  ]);
  expectStatus(offer.status, 200, 'offer document');
  const metadata = await run.http.send(
    'Credential issuer metadata',
    `${run.base}/.well-known/openid-credential-issuer/oid4vci`,
    {},
    ['OpenID4VCI §12.2.2: the well-known segment goes before the issuer path'],
  );
  expectStatus(metadata.status, 200, 'issuer metadata');
  if (metadata.json.credential_issuer !== offer.json.credential_issuer)
    throw new FlowFailure('credential_issuer of the metadata differs from the offer');
  const as = await run.http.send(
    'Authorization server metadata',
    `${run.base}/.well-known/oauth-authorization-server/oid4vci`,
    {},
    ["RFC 8414: token_endpoint of the issuer's own authorization server"],
  );
  expectStatus(as.status, 200, 'authorization server metadata');
  const grant = memberAt(offer.json, 'grants', PRE_AUTHORIZED);
  const preAuthorizedCode = stringOf(memberAt(grant, 'pre-authorized_code'));
  if (!preAuthorizedCode) throw new FlowFailure('the offer carries no pre-authorized_code');
  const txCodeAsked = memberAt(grant, 'tx_code') !== undefined;
  const token = await run.http.send(
    'Token request (pre-authorized code)',
    stringIn(as, 'token_endpoint'),
    // Anonymous: the pre-authorized code is the grant, no client authenticates (OpenID4VCI §6.1).
    clientRequest({
      grant_type: PRE_AUTHORIZED,
      'pre-authorized_code': preAuthorizedCode,
      ...(txCodeAsked ? { tx_code: stringIn(created, 'tx_code_value') } : {}),
    }),
    [
      txCodeAsked
        ? 'OpenID4VCI §6.1: tx_code, sent to the person out of band (five wrong tries burn the code)'
        : 'OpenID4VCI §6.1: anonymous pre-authorized access, no client authentication',
    ],
  );
  expectStatus(token.status, 200, 'token');
  const nonce = await run.http.send('Nonce request', stringIn(metadata, 'nonce_endpoint'), { method: 'POST' }, [
    'OpenID4VCI §7: a fresh c_nonce for the key proofs',
  ]);
  expectStatus(nonce.status, 200, 'nonce');
  // Extractable: an mdoc's device signature is made with node:crypto (Node 24 deprecates DEP0204 otherwise).
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const proof = await signKeyProof(
    { alg: 'ES256', privateKey, publicJwk },
    { aud: stringIn(metadata, 'credential_issuer'), iat: run.nowS(), nonce: stringIn(nonce, 'c_nonce') },
  );
  const authorization = { authorization: `Bearer ${stringIn(token, 'access_token')}` };
  let issued = await run.http.send(
    'Credential request with a key proof',
    stringIn(metadata, 'credential_endpoint'),
    { json: { credential_configuration_id: configuration, proofs: { jwt: [proof] } }, headers: authorization },
    [
      'OpenID4VCI Appendix F.1: typ openid4vci-proof+jwt, aud the issuer, nonce the c_nonce',
      'The credential is bound to the proof key',
    ],
  );
  if (offerOptions.deferred) {
    expectStatus(issued.status, 202, 'deferred acceptance');
    await run.wait(Number(issued.json.interval ?? 3) * 1000);
    issued = await run.http.send(
      'Deferred credential request',
      stringIn(metadata, 'deferred_credential_endpoint'),
      { json: { transaction_id: issued.json.transaction_id }, headers: authorization },
      ['OpenID4VCI §9: 202 with the same transaction_id until ready, then the credential once'],
    );
  }
  expectStatus(issued.status, 200, 'credential');
  const notified = await run.http.send(
    'Notification: credential accepted',
    stringIn(metadata, 'notification_endpoint'),
    { json: { notification_id: issued.json.notification_id, event: 'credential_accepted' }, headers: authorization },
    ['OpenID4VCI §11: 204'],
  );
  expectStatus(notified.status, 204, 'notification');
  const credential = memberAt(issued.json, 'credentials', 0, 'credential');
  if (typeof credential !== 'string' && !isJsonObject(credential))
    throw new FlowFailure('the credential response carries no credential');
  return { credential, privateKey, publicJwk };
}

export function registerOid4vciRunners(runners: FlowRunners): void {
  runners.register('oid4vci', 'pre-authorized-code', async (run) => void (await preAuthorized(run, {})));
  runners.register(
    'oid4vci',
    'pre-authorized-tx-code',
    async (run) => void (await preAuthorized(run, { tx_code: true })),
  );
  runners.register('oid4vci', 'deferred', async (run) => void (await preAuthorized(run, { deferred: true })));
  registerOid4vciAuthorizationCodeRunner(runners);
}

/** The wallet's side (and, as a separate actor, the person's) of the authorization code flow with PAR. */
async function authorizationCode(run: RunContext): Promise<void> {
  const configuration = String(run.options.credential_configuration_id ?? 'UniversityDegreeCredential');
  const created = await run.http.send(
    'Issuer creates an offer for the authorization code grant',
    `${run.base}/oid4vci/offers`,
    { json: { credential_configuration_ids: [configuration], grant: 'authorization_code' } },
    ['OpenID4VCI §4.1.1: issuer_state ties the authorization to this offer'],
  );
  expectStatus(created.status, 201, 'offer');
  const metadata = await run.http.send(
    'Credential issuer metadata',
    `${run.base}/.well-known/openid-credential-issuer/oid4vci`,
  );
  const as = await run.http.send(
    'Authorization server metadata',
    `${run.base}/.well-known/oauth-authorization-server/oid4vci`,
    {},
    ['require_pushed_authorization_requests: true'],
  );
  expectStatus(as.status, 200, 'authorization server metadata');
  const clientId = 'portico-demo-wallet';
  const redirectUri = `${run.base}/callback`;
  const { verifier, challenge } = newPkcePair();
  const par = await run.http.send(
    'Pushed authorization request',
    stringIn(as, 'pushed_authorization_request_endpoint'),
    {
      form: {
        client_id: clientId,
        response_type: 'code',
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'demo-state',
        issuer_state: stringIn(created, 'issuer_state'),
        authorization_details: JSON.stringify([
          { type: 'openid_credential', credential_configuration_id: configuration },
        ]),
      },
    },
    ['RFC 9126 §2.1: the request goes to the server directly, not through the browser', 'PKCE S256 is required'],
  );
  expectStatus(par.status, 201, 'PAR');
  const authorizeUrl = `${stringIn(as, 'authorization_endpoint')}?${new URLSearchParams({ client_id: clientId, request_uri: stringIn(par, 'request_uri') })}`;
  const landed = await authorizeAsPerson(run, authorizeUrl);
  if (landed.searchParams.get('iss') !== as.json.issuer) throw new FlowFailure('iss is not the issuer (RFC 9207)');
  const code = landed.searchParams.get('code');
  if (!code) throw new FlowFailure(`no code: ${landed.searchParams.get('error') ?? 'unknown error'}`);
  const token = await run.http.send(
    'Token request (authorization code + PKCE)',
    stringIn(as, 'token_endpoint'),
    clientRequest(
      { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier },
      { method: 'none', clientId },
    ),
    [
      'RFC 7636 §4.5: the verifier proves the request came from this wallet',
      'authorization_details come back with credential_identifiers',
    ],
  );
  expectStatus(token.status, 200, 'token');
  const identifier = memberAt(token.json, 'authorization_details', 0, 'credential_identifiers', 0);
  const nonce = await run.http.send('Nonce request', stringIn(metadata, 'nonce_endpoint'), { method: 'POST' });
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const proof = await signKeyProof(
    { alg: 'ES256', privateKey, publicJwk: await exportJWK(publicKey) },
    { aud: stringIn(metadata, 'credential_issuer'), iat: run.nowS(), nonce: stringIn(nonce, 'c_nonce'), iss: clientId },
  );
  const issued = await run.http.send(
    'Credential request by credential_identifier',
    stringIn(metadata, 'credential_endpoint'),
    {
      json: { credential_identifier: identifier, proofs: { jwt: [proof] } },
      headers: { authorization: `Bearer ${stringIn(token, 'access_token')}` },
    },
    [
      'OpenID4VCI §8.2: with credential_identifiers in the token, the request names one of them',
      'The proof iss is the client_id',
    ],
  );
  expectStatus(issued.status, 200, 'credential');
}

function registerOid4vciAuthorizationCodeRunner(runners: FlowRunners): void {
  runners.register('oid4vci', 'authorization-code', authorizationCode);
}
