import { expectAnswer, expectEqual, transitionKey, type MachineModel, type Step } from '../model.ts';
import { active, authorize, pkce, redeemCode, type Grant } from './oauth-client.ts';

export interface CodeModelState {
  state: 'unissued' | 'issued' | 'redeemed' | 'replayed';
  grant?: Grant;
  /** Transitions the answers confirmed (the code's log is not exported; introspection shows its effect). */
  confirmed: string[];
}

const moveCode = (m: CodeModelState, event: string, to: CodeModelState['state']) => {
  m.confirmed.push(transitionKey(m.state, event, to));
  m.state = to;
};

const codeSteps: Step<CodeModelState>[] = [
  {
    name: 'authorize',
    check: (m) => m.state === 'unissued',
    async run(m, { http }) {
      m.grant = await authorize(http, 'openid');
      moveCode(m, 'code.issued', 'issued');
    },
  },
  {
    name: 'redeem code',
    check: (m) => m.grant !== undefined,
    async run(m, { http }) {
      const answer = await redeemCode(http, m.grant!);
      if (m.state !== 'issued') {
        // RFC 6749 §4.1.2 and §10.5: a second use is refused and revokes what the first produced.
        expectAnswer('code redeemed again', answer, 400, 'invalid_grant');
        if (m.state === 'redeemed') moveCode(m, 'code.replayed', 'replayed');
        return;
      }
      expectAnswer('code redemption', answer, 200);
      expectEqual('token_type', answer.body.token_type, 'Bearer');
      m.grant!.accessToken = answer.body.access_token;
      moveCode(m, 'code.redeemed', 'redeemed');
    },
  },
  {
    name: 'redeem code with a wrong verifier',
    check: (m) => m.grant !== undefined,
    async run(m, { http }) {
      // RFC 7636 §4.6: refused; the code itself is not used up by a failed check.
      expectAnswer('wrong code_verifier', await redeemCode(http, m.grant!, pkce().verifier), 400, 'invalid_grant');
      if (m.state === 'redeemed') moveCode(m, 'code.replayed', 'replayed');
    },
  },
];

/** Authorization codes (RFC 6749 §4.1, RFC 7636), at `/oauth2`. */
export const authorizationCodeModel: MachineModel<CodeModelState> = {
  machine: 'authorizationCode',
  unreachable: {},
  start: ['authorize'],
  create: () => ({ state: 'unissued', confirmed: [] }),
  steps: codeSteps,
  stepsFor: (event) =>
    ({ 'code.issued': ['authorize'], 'code.redeemed': ['redeem code'], 'code.replayed': ['redeem code'] })[event],
  async observe(m, { http }) {
    if (!m.grant) return undefined;
    // Issued: nothing to read yet. Redeemed: its access token is active. Replayed: revoked (§10.5).
    const state = !m.grant.accessToken ? 'issued' : (await active(http, m.grant.accessToken)) ? 'redeemed' : 'replayed';
    return { state, transitions: m.confirmed };
  },
};
