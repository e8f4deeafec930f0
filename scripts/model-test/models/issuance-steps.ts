import { authorizeAsPerson } from '../browser.ts';
import { clientRequest } from '../../../services/oauth/client-kit.ts';
import type { Http } from '../http.ts';
import { expectAnswer, expectEqual, ModelMismatch, type Step } from '../model.ts';
import { holderKey, keyProof } from './holder.ts';
import { namingAWalletExchange } from '../streams.ts';
import { pkce } from './oauth-client.ts';
import { bearer, changeStatus, notify } from './issuance-status.ts';

type IssuanceStateName =
  | 'new'
  | 'offered'
  | 'offer_fetched'
  | 'authorization_requested'
  | 'authorizing'
  | 'code_issued'
  | 'token_issued'
  | 'deferred'
  | 'credential_issued'
  | 'notified'
  | 'expired';

export interface IssuanceModelState {
  state: IssuanceStateName;
  streamId?: string;
  offer?: {
    id: string;
    uri: string;
    preAuthorizedCode?: string;
    txCode?: string;
    issuerState?: string;
    /** The creator's capability to change its credentials' status. */
    statusToken: string;
  };
  deferred: boolean;
  txFailures: number;
  par?: { requestUri: string; verifier: string };
  code?: string;
  accessToken?: string;
  /** OpenID4VCI 1.0 §6.2: a token naming credential_identifiers is used with one of them (§8.2). */
  credentialIdentifier?: string;
  notificationId?: string;
  accepted: boolean;
  deferral?: { transactionId: string; at: number };
  correlated: boolean;
  /** The status of each credential issued, in order (docs/status.md). */
  statuses: Array<'valid' | 'suspended' | 'revoked'>;
}

const CONFIGURATION = 'UniversityDegreeCredential';
const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
/** decisions §8: five wrong tx_codes burn the offer. */
const TX_CODE_ATTEMPTS = 5;
/** decisions §8: a deferred credential is ready 3 s after it was asked for. */
const DEFERRED_MS = 3_000;
const MARGIN_MS = 500;
const CLIENT = 'model-test-wallet';
const REDIRECT = 'https://wallet.example/cb';

type S = IssuanceModelState;
const offerLive = (m: S) => m.state === 'offered' || m.state === 'offer_fetched';

const offer = (name: string, body: Record<string, unknown>): Step<S> => ({
  name,
  check: (m) => m.state === 'new',
  async run(m, { http }) {
    const answer = await http.call('/oid4vci/offers', {
      json: { credential_configuration_ids: [CONFIGURATION], ...body },
    });
    expectAnswer('POST /oid4vci/offers', answer, 201);
    const b = answer.body;
    m.offer = {
      id: b.offer_id,
      uri: b.credential_offer_uri,
      preAuthorizedCode: b.pre_authorized_code,
      txCode: b.tx_code_value,
      issuerState: b.issuer_state,
      statusToken: b.status_token,
    };
    m.streamId = `issuance:${b.offer_id}`;
    m.deferred = body.deferred === true;
    m.state = 'offered';
  },
});

const preAuthorizedToken = (http: Http, m: S, txCode: string | undefined) =>
  http.call(
    '/oid4vci/token',
    clientRequest({
      grant_type: PRE_AUTHORIZED,
      'pre-authorized_code': m.offer!.preAuthorizedCode!,
      ...(txCode !== undefined ? { tx_code: txCode } : {}),
    }),
  );

/** What the authorization server's code and PAR steps share: PKCE S256 and a pushed request (RFC 9126). */
async function pushAuthorization(http: Http, m: S, issuerState?: string) {
  const { verifier, challenge } = pkce();
  const answer = await http.call('/oid4vci/par', {
    form: {
      client_id: CLIENT,
      response_type: 'code',
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      authorization_details: JSON.stringify([
        { type: 'openid_credential', credential_configuration_id: CONFIGURATION },
      ]),
      ...(issuerState ? { issuer_state: issuerState } : {}),
    },
  });
  return { answer, verifier };
}

const authorize = (decision: 'approve' | 'deny'): Step<S> => ({
  name: decision === 'approve' ? 'authorize' : 'authorize, and decline',
  check: (m) => m.state === 'authorization_requested',
  async run(m, { http }) {
    const query = new URLSearchParams({ client_id: CLIENT, request_uri: m.par!.requestUri });
    const landed = await authorizeAsPerson(http, `/oid4vci/authorize?${query}`, decision);
    expectEqual('redirect target', landed.origin + landed.pathname, REDIRECT);
    expectEqual('iss (RFC 9207)', landed.searchParams.get('iss'), `${http.base}/oid4vci`);
    if (decision === 'deny') {
      expectEqual('error', landed.searchParams.get('error'), 'access_denied');
      m.state = 'expired';
      return;
    }
    const code = landed.searchParams.get('code');
    if (!code) throw new ModelMismatch(`authorization: no code in ${landed.search}`);
    m.code = code;
    m.state = 'code_issued';
  },
});

export const issuanceSteps: Step<S>[] = [
  offer('offer', { tx_code: true }),
  offer('offer, deferred', { deferred: true }),
  offer('offer, authorization code', { grant: 'authorization_code' }),
  {
    name: 'push an authorization request',
    check: (m) => m.state === 'new',
    async run(m, { http }) {
      const { answer, verifier } = await pushAuthorization(http, m);
      expectAnswer('POST /oid4vci/par', answer, 201);
      m.par = { requestUri: answer.body.request_uri, verifier };
      m.streamId = answer.headers.get('x-portico-stream') ?? undefined;
      if (!m.streamId) throw new ModelMismatch('PAR answered without X-Portico-Stream');
      m.state = 'authorization_requested';
    },
  },
  {
    name: 'push an authorization request for the offer',
    check: (m) => m.offer?.issuerState !== undefined && m.par === undefined,
    async run(m, { http }) {
      const { answer, verifier } = await pushAuthorization(http, m, m.offer!.issuerState);
      // An offer is pushed for once, while it lives (decisions §8).
      if (!offerLive(m)) return expectAnswer('PAR for a used offer', answer, 400, 'invalid_request');
      expectAnswer('POST /oid4vci/par with issuer_state', answer, 201);
      m.par = { requestUri: answer.body.request_uri, verifier };
      m.state = 'authorization_requested';
    },
  },
  {
    name: 'fetch the offer',
    check: (m) => m.offer !== undefined && (offerLive(m) || m.state === 'expired'),
    async run(m, { http }) {
      const answer = await http.call(m.offer!.uri);
      if (m.state === 'expired') return expectAnswer('fetch of an expired offer', answer, 404, 'not_found');
      expectAnswer('GET credential_offer_uri', answer, 200);
      expectEqual('credential_issuer', answer.body.credential_issuer, `${http.base}/oid4vci`);
      m.state = 'offer_fetched';
    },
  },
  {
    name: 'token with a wrong tx_code',
    check: (m) => m.offer?.txCode !== undefined,
    async run(m, { http }) {
      const wrong = String((Number(m.offer!.txCode) + 1) % 1_000_000).padStart(6, '0');
      expectAnswer('wrong tx_code', await preAuthorizedToken(http, m, wrong), 400, 'invalid_grant');
      if (!offerLive(m)) return;
      m.txFailures++;
      if (m.txFailures >= TX_CODE_ATTEMPTS) m.state = 'expired';
    },
  },
  {
    name: 'token',
    check: (m) => m.offer?.preAuthorizedCode !== undefined,
    async run(m, { http }) {
      const answer = await preAuthorizedToken(http, m, m.offer!.txCode);
      // The pre-authorized code is used once, while its offer lives.
      if (!offerLive(m)) return expectAnswer('pre-authorized code used again', answer, 400, 'invalid_grant');
      expectAnswer('pre-authorized_code grant', answer, 200);
      m.accessToken = answer.body.access_token;
      m.state = 'token_issued';
    },
  },
  authorize('approve'),
  authorize('deny'),
  {
    name: 'token with the code',
    check: (m) => m.code !== undefined,
    async run(m, { http }) {
      const answer = await http.call(
        '/oid4vci/token',
        clientRequest(
          { grant_type: 'authorization_code', code: m.code!, redirect_uri: REDIRECT, code_verifier: m.par!.verifier },
          { method: 'none', clientId: CLIENT },
        ),
      );
      if (m.state !== 'code_issued') return expectAnswer('code used again', answer, 400, 'invalid_grant');
      expectAnswer('authorization_code grant', answer, 200);
      m.accessToken = answer.body.access_token;
      m.credentialIdentifier = answer.body.authorization_details?.[0]?.credential_identifiers?.[0];
      m.streamId ??= answer.headers.get('x-portico-stream') ?? undefined;
      m.state = 'token_issued';
    },
  },
  {
    name: 'credential',
    check: (m) => m.accessToken !== undefined && m.state !== 'expired',
    async run(m, { http }) {
      const proof = await keyProof(http, await holderKey(), m.code ? CLIENT : undefined);
      const answer = await http.call('/oid4vci/credential', {
        json: {
          ...(m.credentialIdentifier
            ? { credential_identifier: m.credentialIdentifier }
            : { credential_configuration_id: CONFIGURATION }),
          proofs: { jwt: [proof] },
        },
        headers: bearer(m),
      });
      if (m.state === 'notified')
        return expectAnswer('credential after the end', answer, 400, 'credential_request_denied');
      if (m.state === 'deferred' || (m.deferred && m.state !== 'token_issued'))
        return expectAnswer('a second deferral', answer, 400, 'invalid_credential_request');
      if (m.deferred) {
        expectAnswer('deferred credential request', answer, 202);
        m.deferral = { transactionId: answer.body.transaction_id, at: Date.now() };
        m.state = 'deferred';
        return;
      }
      expectAnswer('credential request', answer, 200);
      m.notificationId = answer.body.notification_id;
      m.statuses.push('valid');
      m.state = 'credential_issued';
    },
  },
  collect(false),
  collect(true),
  changeStatus('suspended'),
  changeStatus('valid'),
  changeStatus('revoked'),
  notify('credential_accepted'),
  notify('credential_failure'),
  {
    name: 'name a wallet exchange',
    check: (m) => m.offer !== undefined && m.state !== 'expired',
    async run(m, { http }) {
      // Correlation (docs/debugging.md): recorded once per issuance, at the offer fetch among others.
      const answer = await http.call(m.offer!.uri, {
        headers: namingAWalletExchange(),
      });
      if (offerLive(m)) m.state = 'offer_fetched';
      expectAnswer('GET credential_offer_uri naming a wallet exchange', answer, 200);
      expectEqual('X-Portico-Stream', answer.headers.get('x-portico-stream'), m.streamId);
      m.correlated = true;
    },
  },
];

function collect(whenReady: boolean): Step<S> {
  return {
    name: whenReady ? 'collect the deferred credential when ready' : 'collect the deferred credential',
    slow: whenReady,
    check: (m) => m.deferral !== undefined,
    async run(m, { http }) {
      const wait = m.deferral!.at + DEFERRED_MS + MARGIN_MS - Date.now();
      if (whenReady && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const elapsed = Date.now() - m.deferral!.at;
      const answer = await http.call('/oid4vci/deferred_credential', {
        json: { transaction_id: m.deferral!.transactionId },
        headers: bearer(m),
      });
      if (m.state !== 'deferred') return expectAnswer('collected again', answer, 400, 'invalid_transaction_id');
      const ready = elapsed >= DEFERRED_MS + MARGIN_MS || (elapsed >= DEFERRED_MS - MARGIN_MS && answer.status === 200);
      if (!ready) return expectAnswer('deferred, not yet ready', answer, 202);
      expectAnswer('deferred credential', answer, 200);
      m.notificationId = answer.body.notification_id;
      m.statuses.push('valid');
      m.state = 'credential_issued';
    },
  };
}
