import { randomBytes } from 'node:crypto';
import { expectAnswer, expectEqual, transitionKey, type MachineModel, type Step } from '../model.ts';
import { namingAWalletExchange, observeStream } from '../streams.ts';

type State = 'new' | 'created' | 'fetched' | 'answered' | 'verified' | 'rejected' | 'wallet_error' | 'expired';

export interface PresentationModelState {
  state: State;
  request?: {
    id: string;
    transactionId: string;
    state: string;
    uri: string;
    requestUri?: string;
    resultUri: string;
    /** A Digital Credentials API request (OpenID4VP 1.0 Appendix A): answered through the browser. */
    dcApi?: { digital: unknown; responseUri: string };
  };
  /** The wallet harness session that presents (one per actor). */
  session: string;
}

/** The issuer's SD-JWT VC the wallet harness fetches for itself (`/submit` issues what is missing). */
const degreeQuery = (base: string) => ({
  credentials: [
    {
      id: 'degree',
      format: 'dc+sd-jwt',
      meta: { vct_values: [`${base}/oid4vci/credential-types/university-degree`] },
      claims: [{ path: ['degree'] }],
    },
  ],
});

const open = (m: PresentationModelState) => m.state === 'created' || m.state === 'fetched';

const create = (name: string, options: Record<string, unknown>): Step<PresentationModelState> => ({
  name,
  check: (m) => m.state === 'new',
  async run(m, { http }) {
    const answer = await http.call('/oid4vp/request/create', {
      json: { dcql_query: degreeQuery(http.base), ...options },
    });
    expectAnswer('POST /oid4vp/request/create', answer, 201);
    const b = answer.body as {
      request_id: string;
      transaction_id: string;
      state?: string;
      authorization_request_uri?: string;
      result_uri: string;
      request_uri?: string;
      digital?: unknown;
      dc_api_response_uri?: string;
    };
    m.request = {
      id: b.request_id,
      transactionId: b.transaction_id,
      // A DC API request has neither: the browser carries it (OpenID4VP 1.0 Appendix A).
      state: b.state ?? '',
      uri: b.authorization_request_uri ?? '',
      resultUri: b.result_uri,
      ...(b.request_uri ? { requestUri: b.request_uri } : {}),
      ...(b.digital ? { dcApi: { digital: b.digital, responseUri: String(b.dc_api_response_uri) } } : {}),
    };
    m.state = 'created';
  },
});

const redirectRequest = (m: PresentationModelState) => m.request !== undefined && m.request.dcApi === undefined;
const browserRequest = (m: PresentationModelState) => m.request?.dcApi !== undefined;

const respond = (name: string, form: (m: PresentationModelState) => Record<string, string>, to: State) => ({
  name,
  check: redirectRequest,
  async run(m: PresentationModelState, { http }: Parameters<Step<PresentationModelState>['run']>[1]) {
    const answer = await http.call('/oid4vp/response', { form: form(m) });
    // OpenID4VP 1.0 §8.2: one response per request; later ones are refused.
    if (!open(m)) return expectAnswer(`${name} again`, answer, 400, 'invalid_request');
    expectAnswer(name, answer, 200);
    m.state = to;
  },
});

const steps: Step<PresentationModelState>[] = [
  create('create a request', {}),
  create('create a signed request by reference', { client_id_prefix: 'x509_hash' }),
  create('create a Digital Credentials API request', { response_mode: 'dc_api' }),
  {
    name: 'the wallet presents through the browser',
    check: (m) => browserRequest(m) && open(m),
    async run(m, { http, wallet }) {
      const origin = new URL(http.base).origin;
      const answer = await wallet!.call('/api/dc-api/present', {
        json: { origin, requests: (m.request!.dcApi!.digital as { requests: unknown[] }).requests },
        headers: { 'x-wallet-session': m.session },
      });
      expectAnswer('wallet POST /api/dc-api/present', answer, 200);
      const { data } = answer.body as { data?: unknown };
      const posted = await http.call(m.request!.dcApi!.responseUri, { json: { origin, data } });
      expectAnswer('POST dc_api_response_uri', posted, 200);
      m.state = 'verified';
    },
  },
  {
    name: 'answer through the browser from an unexpected origin',
    check: browserRequest,
    async run(m, { http }) {
      const answer = await http.call(m.request!.dcApi!.responseUri, {
        json: { origin: 'https://elsewhere.example', data: { vp_token: { degree: ['x'] } } },
      });
      // Appendix A.4: taken and rejected by the check origin; a request is answered once (a replay is refused).
      if (!open(m)) return expectAnswer('a DC API answer again', answer, 400, 'invalid_request');
      expectAnswer('POST dc_api_response_uri from another origin', answer, 200);
      m.state = 'rejected';
    },
  },
  {
    name: 'fetch the request object',
    check: (m) => m.request?.requestUri !== undefined,
    async run(m, { http }) {
      const answer = await http.call(m.request!.requestUri!);
      // A request object is served until the request is answered or has lapsed.
      if (!open(m)) return expectAnswer('request object after the answer', answer, 400, 'invalid_request_uri');
      expectAnswer('GET request_uri', answer, 200);
      m.state = 'fetched';
    },
  },
  respond('post a wallet error', (m) => ({ error: 'access_denied', state: m.request!.state }), 'wallet_error'),
  respond(
    'post a vp_token that does not verify',
    (m) => ({ vp_token: JSON.stringify({ degree: ['not-a-presentation'] }), state: m.request!.state }),
    'rejected',
  ),
  {
    name: 'the wallet presents',
    check: (m) => redirectRequest(m) && open(m),
    async run(m, { wallet }) {
      const answer = await wallet!.call('/submit', {
        json: { uri: m.request!.uri },
        headers: { 'x-wallet-session': m.session },
      });
      expectAnswer('wallet POST /submit', answer, 200);
      m.state = 'verified';
    },
  },
  {
    name: 'read the result',
    check: (m) => m.request !== undefined,
    async run(m, { http }) {
      const answer = await http.call(m.request!.resultUri);
      expectAnswer('GET result_uri', answer, 200);
      // decisions §9: the result names the request's state.
      expectEqual('result status', answer.body.status, m.state);
    },
  },
  {
    name: 'name a wallet exchange',
    check: (m) => m.request?.requestUri !== undefined && open(m),
    async run(m, { http }) {
      const answer = await http.call(m.request!.requestUri!, {
        headers: namingAWalletExchange(),
      });
      expectAnswer('GET request_uri naming a wallet exchange', answer, 200);
      expectEqual('X-Portico-Stream', answer.headers.get('x-portico-stream'), `presentation:${m.request!.id}`);
      m.state = 'fetched';
    },
  },
];

/** OpenID4VP requests at `/oid4vp`, answered by the wallet harness or refused; read with their transaction_id. */
export const presentationModel: MachineModel<PresentationModelState> = {
  machine: 'presentation',
  needsWallet: true,
  unreachable: {
    [transitionKey('created', 'presentation.expired', 'expired')]: 'needs the clock past the request lifetime (300 s)',
    [transitionKey('fetched', 'presentation.expired', 'expired')]: 'needs the clock past the request lifetime (300 s)',
  },
  anywhereFrom: 'fetched',
  start: ['create a request', 'create a signed request by reference', 'create a Digital Credentials API request'],
  create: () => ({ state: 'new', session: `model-test-${randomBytes(8).toString('base64url')}` }),
  steps,
  stepsFor(event, _guard, goal) {
    switch (event) {
      case 'presentation.created':
        return [
          goal.from === 'fetched' || goal.to === 'fetched' || goal.from === '*'
            ? 'create a signed request by reference'
            : 'create a request',
        ];
      case 'presentation.request_fetched':
        return ['fetch the request object'];
      case 'presentation.response_received':
        return goal.event === 'presentation.verified'
          ? ['the wallet presents']
          : ['post a vp_token that does not verify'];
      case 'presentation.verified':
      case 'presentation.rejected':
        return [];
      case 'presentation.wallet_error':
        return ['post a wallet error'];
      case 'presentation.correlated':
        return ['name a wallet exchange'];
    }
    return undefined;
  },
  observe: (m, { http }) =>
    m.request
      ? observeStream(http, `presentation:${m.request.id}`, 'new', {}, { transaction_id: m.request.transactionId })
      : Promise.resolve(undefined),
};
