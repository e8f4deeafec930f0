import { createHash } from 'node:crypto';
import type { JWK } from 'jose';
import { encryptAnswer } from '../../oauth/client-kit.ts';
import { FlowFailure, expectStatus, type FlowRunners, type RunContext } from '../registry.ts';
import { preAuthorized } from './oid4vci.ts';
import { presentation, queryFor, type CredentialKind } from './oid4vp.ts';
import { checkRequestObject, requestObjectOf, type RequestObject } from './request-object.ts';
import { objectOf, stringsOf } from '../../untrusted/json.ts';

/** The payment the transaction-data flow asks the holder to authorize (a demo type, docs/verifier.md). */
const PAYMENT = {
  type: 'urn:portico:transaction-data:payment-confirmation',
  credential_ids: ['degree'],
  amount: '42.50',
  currency: 'EUR',
  payee: 'Portico Demo Shop',
};

/** The members of the verifier's creation answer these flows read. */
interface Created {
  client_id?: string;
  request_uri?: string;
  transaction_data?: string[];
  /** The data is the request itself (unsigned) or `{request: <JWS>}` (signed). */
  digital?: { requests: Array<{ protocol: string; data: unknown }> };
  dc_api_response_uri?: string;
  result_uri: string;
}

const kindOf = (run: RunContext, fallback: CredentialKind): CredentialKind => {
  const kind = (run.options.credential ?? fallback) as CredentialKind;
  if (kind !== 'sd-jwt' && kind !== 'mdoc') throw new FlowFailure('option credential must be sd-jwt or mdoc');
  return kind;
};
const configurationOf = (kind: CredentialKind) =>
  kind === 'mdoc' ? 'MobileDrivingLicenceMsoMdoc' : 'UniversityDegreeCredential';

/**
 * OpenID4VP over the Digital Credentials API (Appendix A): the verifier's page hands the request to
 * the browser, the runner plays the platform wallet for the page's origin, and the page posts what
 * came back with that origin. Unsigned (dc_api) or signed with expected_origins and answered
 * encrypted (dc_api.jwt).
 */
async function dcApiPresentation(run: RunContext, mode: 'dc_api' | 'dc_api.jwt'): Promise<void> {
  const kind = kindOf(run, mode === 'dc_api' ? 'sd-jwt' : 'mdoc');
  const held = await preAuthorized(run, {}, configurationOf(kind));
  const origin = new URL(run.base).origin;
  const created = await run.http.send(
    'Verifier creates a Digital Credentials API request',
    `${run.base}/oid4vp/request/create`,
    { json: { response_mode: mode, dcql_query: queryFor(kind, run.base) } },
    [
      `OpenID4VP Appendix A: ${mode === 'dc_api' ? 'an unsigned request (openid4vp-v1-unsigned): no client_id, no state, no response_uri' : 'a request object signed by x509_hash with expected_origins (openid4vp-v1-signed)'}`,
      'The answer carries the exact argument of navigator.credentials.get({digital})',
    ],
  );
  expectStatus(created.status, 201, 'request creation');
  const body = created.body as Created;
  const [{ protocol, data }] = body.digital?.requests ?? [];
  let request: RequestObject;
  if (mode === 'dc_api.jwt') {
    request = await checkRequestObject(run, String(objectOf(data)?.request), String(body.client_id));
    if (!Array.isArray(request.expected_origins) || !request.expected_origins.includes(origin))
      throw new FlowFailure(`the signed request does not list ${origin} in expected_origins`);
  } else request = requestObjectOf(data);
  const encryptionJwk =
    mode === 'dc_api.jwt' ? (request.client_metadata?.jwks?.keys?.[0] as JWK | undefined) : undefined;
  if (mode === 'dc_api.jwt' && !encryptionJwk)
    throw new FlowFailure('a dc_api.jwt request must carry client_metadata.jwks');
  const vpToken = await presentation(run, kind, held, request, { origin, ...(encryptionJwk ? { encryptionJwk } : {}) });
  const answer = encryptionJwk
    ? { response: (await encryptAnswer({ vp_token: vpToken }, encryptionJwk, request)).jwe }
    : { vp_token: vpToken };
  const posted = await run.http.send(
    "The page posts the browser's answer with its origin",
    String(body.dc_api_response_uri),
    { json: { origin, data: answer } },
    [
      `The platform wallet answered ${protocol}: credential.data ${encryptionJwk ? 'is {response: <JWE>} (ECDH-ES to the verifier key)' : 'is {vp_token}'}`,
      kind === 'mdoc'
        ? 'The mdoc is signed over the OpenID4VPDCAPIHandover: origin, nonce and the encryption key thumbprint (Appendix B.2.6.2)'
        : `The KB-JWT's aud is origin:${origin}, not a client_id (Appendix A.4)`,
    ],
  );
  expectStatus(posted.status, 200, 'DC API response');
  await verdict(run, body.result_uri);
}

/**
 * Transaction data (§8.4): the verifier asks the holder to authorize a payment with the degree; the
 * KB-JWT carries the SHA-256 of the entry as it was sent, and the verifier checks it.
 */
async function transactionDataPresentation(run: RunContext): Promise<void> {
  const held = await preAuthorized(run, {}, configurationOf('sd-jwt'));
  const created = await run.http.send(
    'Verifier creates a request with a payment to authorize',
    `${run.base}/oid4vp/request/create`,
    {
      json: {
        client_id_prefix: 'x509_hash',
        dcql_query: queryFor('sd-jwt', run.base),
        transaction_data: [PAYMENT],
      },
    },
    ['OpenID4VP §5.1: each transaction_data entry is base64url-encoded JSON with type and credential_ids'],
  );
  expectStatus(created.status, 201, 'request creation');
  const body = created.body as Created;
  const fetched = await run.http.send('Wallet fetches the request object', String(body.request_uri), {}, [
    'The signed request object carries transaction_data as created',
  ]);
  expectStatus(fetched.status, 200, 'request object');
  const request = await checkRequestObject(run, fetched.text, String(body.client_id));
  const entries = stringsOf(request.transaction_data);
  if (entries.length !== 1) throw new FlowFailure('the request carries no transaction_data');
  const shown = JSON.parse(Buffer.from(entries[0], 'base64url').toString('utf8')) as typeof PAYMENT;
  if (shown.amount !== PAYMENT.amount || shown.payee !== PAYMENT.payee)
    throw new FlowFailure('the transaction the wallet shows is not the one the verifier created');
  const vpToken = await presentation(run, 'sd-jwt', held, request, {
    kbClaims: { transaction_data_hashes: [createHash('sha256').update(entries[0]).digest('base64url')] },
  });
  const answered = await run.http.send(
    'Wallet posts the vp_token that authorizes the payment',
    String(request.response_uri),
    { form: { vp_token: JSON.stringify(vpToken), state: String(request.state) } },
    [
      `The holder saw: pay ${shown.amount} ${shown.currency} to ${shown.payee}`,
      'Appendix B.3.3: the KB-JWT carries transaction_data_hashes, SHA-256 over the entry string as received',
    ],
  );
  expectStatus(answered.status, 200, 'response');
  await verdict(run, body.result_uri);
}

async function verdict(run: RunContext, resultUri: string): Promise<void> {
  const result = await run.http.send('Verifier reads the result', resultUri, {}, [
    'Every failed check would be named in reasons',
  ]);
  expectStatus(result.status, 200, 'result');
  const { status, reasons } = result.body as { status?: string; reasons?: unknown };
  if (status !== 'verified')
    throw new FlowFailure(`the verifier rejected the presentation: ${JSON.stringify(reasons)}`);
}

export function registerOid4vpBrowserRunners(runners: FlowRunners): void {
  runners.register('oid4vp', 'dc-api', (run) => dcApiPresentation(run, 'dc_api'));
  runners.register('oid4vp', 'dc-api-signed', (run) => dcApiPresentation(run, 'dc_api.jwt'));
  runners.register('oid4vp', 'transaction-data', transactionDataPresentation);
}
