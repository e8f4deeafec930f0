import { expectAnswer, expectEqual, type MachineModel, type Step } from '../model.ts';
import { observeStream } from '../streams.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The claim grant of the default vendor; a deployment with AGENT_AUTH_VENDOR set names its own. */
const CLAIM_GRANT = 'urn:portico:agent-auth:grant-type:claim';
/** RFC 8628 §3.5 pacing as service spec §3 states it; a poll closer than this is slow_down. */
const INTERVAL_MS = 5_000;
/** Polls this close to the interval may land on either side of it (the tester's clock is not the server's). */
const MARGIN_MS = 1_000;

type State = 'unregistered' | 'unclaimed' | 'claiming' | 'claimed' | 'revoked';

export interface AgentModelState {
  state: State;
  agentId?: string;
  claimToken?: string;
  /** Identity assertions the agent holds, and whether each was redeemed. */
  assertions: Array<{ jwt: string; redeemed: boolean }>;
  accessToken?: string;
  /** Every user code handed out, the current one last. */
  userCodes: string[];
  /** The person's decision on the current claim, and the last poll's time (the tester's clock). */
  decision?: 'pending' | 'approved' | 'declined';
  lastPollAt?: number;
}

const registered = (m: AgentModelState) => m.state !== 'unregistered';

const register: Step<AgentModelState> = {
  name: 'register',
  check: (m) => m.state === 'unregistered',
  async run(m, { http }) {
    const answer = await http.call('/agentauth/identity', { json: { type: 'anonymous' } });
    expectAnswer('POST /agentauth/identity', answer, 201);
    m.agentId = answer.body.agent_id;
    m.claimToken = answer.body.claim_token;
    m.assertions.push({ jwt: answer.body.identity_assertion, redeemed: false });
    m.state = 'unclaimed';
  },
};

const redeem = (which: 'fresh' | 'redeemed'): Step<AgentModelState> => ({
  name: which === 'fresh' ? 'redeem assertion' : 'redeem a redeemed assertion',
  check: (m) => m.assertions.some((a) => a.redeemed === (which === 'redeemed')),
  async run(m, { http }) {
    const assertion = m.assertions.find((a) => a.redeemed === (which === 'redeemed'))!;
    const answer = await http.call('/agentauth/token', { form: { grant_type: JWT_BEARER, assertion: assertion.jwt } });
    // Single use (spec §3 "assertion redeemed"); a revoked agent redeems nothing ("any agent").
    if (which === 'redeemed' || m.state === 'revoked')
      return expectAnswer('jwt-bearer grant', answer, 400, 'invalid_grant');
    expectAnswer('jwt-bearer grant', answer, 200);
    expectEqual('token scope', answer.body.scope, m.state === 'claimed' ? 'agent:read agent:write' : 'agent:read');
    assertion.redeemed = true;
    m.accessToken = answer.body.access_token;
  },
});

const startClaim: Step<AgentModelState> = {
  name: 'start claim',
  check: registered,
  async run(m, { http }) {
    const answer = await http.call('/agentauth/identity/claim', {
      json: { claim_token: m.claimToken, email: 'person@example.com' },
    });
    if (m.state === 'revoked' || m.state === 'claimed')
      return expectAnswer('POST /agentauth/identity/claim', answer, 400, 'invalid_grant');
    expectAnswer('POST /agentauth/identity/claim', answer, 200);
    m.userCodes.push(answer.body.user_code);
    m.decision = 'pending';
    m.lastPollAt = undefined;
    m.state = 'claiming';
  },
};

const decide = (decision: 'approve' | 'decline', code: 'current' | 'stale'): Step<AgentModelState> => ({
  name: `${decision} ${code === 'stale' ? 'with an earlier code' : ''}`.trim(),
  check: (m) => m.userCodes.length > (code === 'stale' ? 1 : 0),
  async run(m, { http }) {
    const userCode = code === 'stale' ? m.userCodes.at(-2)! : m.userCodes.at(-1)!;
    const answer = await http.call('/agentauth/claim', { form: { user_code: userCode, decision } });
    // A person decides once, on the pending claim's current code (spec §3 "claim pending").
    const allowed = code === 'current' && m.state === 'claiming' && m.decision === 'pending';
    expectAnswer(`${decision} at /agentauth/claim`, answer, allowed ? 200 : 400);
    if (allowed) m.decision = decision === 'approve' ? 'approved' : 'declined';
  },
});

const poll: Step<AgentModelState> = {
  name: 'poll',
  check: registered,
  async run(m, { http }) {
    const sentAt = Date.now();
    const answer = await http.call('/agentauth/token', {
      form: { grant_type: CLAIM_GRANT, claim_token: m.claimToken! },
    });
    if (m.state !== 'claiming') return expectAnswer('claim grant', answer, 400, 'invalid_grant');
    const since = m.lastPollAt === undefined ? Infinity : sentAt - m.lastPollAt;
    m.lastPollAt = sentAt;
    const paced = since >= INTERVAL_MS + MARGIN_MS;
    if (since < INTERVAL_MS - MARGIN_MS || (!paced && answer.body?.error === 'slow_down'))
      return expectAnswer('claim grant (too soon)', answer, 400, 'slow_down');
    if (m.decision === 'approved') {
      expectAnswer('claim grant (approved)', answer, 200);
      expectEqual('granted scope', answer.body.scope, 'agent:read agent:write');
      m.assertions.push({ jwt: answer.body.identity_assertion, redeemed: false });
      m.accessToken = answer.body.access_token;
      m.state = 'claimed';
      return;
    }
    expectAnswer('claim grant', answer, 400, m.decision === 'declined' ? 'access_denied' : 'authorization_pending');
  },
};

const revoke: Step<AgentModelState> = {
  name: 'revoke',
  check: registered,
  async run(m, { http }) {
    const answer = await http.call('/agentauth/revoke', {
      form: { token: m.claimToken!, token_type_hint: 'claim_token' },
    });
    expectAnswer('POST /agentauth/revoke', answer, 200); // RFC 7009 §2.2: also for a token already revoked
    m.state = 'revoked';
  },
};

/** The agent lifecycle of service spec §3, over `/agentauth/*`; its log is read with the agent's own token. */
export const agentModel: MachineModel<AgentModelState> = {
  machine: 'agent',
  unreachable: {},
  reveal: 'redeem assertion',
  start: ['register'],
  create: () => ({ state: 'unregistered', assertions: [], userCodes: [] }),
  steps: [
    register,
    redeem('fresh'),
    redeem('redeemed'),
    startClaim,
    decide('approve', 'current'),
    decide('decline', 'current'),
    decide('approve', 'stale'),
    poll,
    revoke,
  ],
  stepsFor(event, guard) {
    switch (event) {
      case 'agent.registered':
        return ['register'];
      case 'agent.assertion_redeemed':
        return ['redeem assertion'];
      case 'agent.claim_started':
        return ['start claim'];
      case 'agent.claim_polled':
        return guard === 'pollGrants' ? ['approve', 'poll'] : ['poll'];
      case 'agent.claim_approved':
        return ['approve'];
      case 'agent.claim_declined':
        return ['decline'];
      case 'agent.revoked':
        return ['revoke'];
    }
    return undefined;
  },
  observe: (m, { http }) =>
    m.agentId && m.accessToken
      ? observeStream(http, `agent:${m.agentId}`, 'unregistered', { authorization: `Bearer ${m.accessToken}` })
      : Promise.resolve(undefined),
};
