import { expectAnswer, transitionKey, type MachineModel, type Step } from '../model.ts';
import { clientRequest } from '../../../services/oauth/client-kit.ts';
import { active, authorize, CLIENT_ID, PREFIX, redeemCode } from './oauth-client.ts';

export interface RefreshModelState {
  state: 'unissued' | 'active' | 'revoked';
  /** The refresh token to use next, and those rotated away (RFC 9700 §4.14.2). */
  current?: string;
  retired: string[];
  confirmed: string[];
}

const move = (m: RefreshModelState, event: string, to: RefreshModelState['state']) => {
  m.confirmed.push(transitionKey(m.state, event, to));
  m.state = to;
};

const refresh = (m: RefreshModelState, token: string, http: Parameters<Step<RefreshModelState>['run']>[1]['http']) =>
  http.call(
    `${PREFIX}/token`,
    clientRequest({ grant_type: 'refresh_token', refresh_token: token }, { method: 'none', clientId: CLIENT_ID }),
  );

const steps: Step<RefreshModelState>[] = [
  {
    name: 'authorize with offline_access',
    check: (m) => m.state === 'unissued',
    async run(m, { http }) {
      const grant = await authorize(http, 'openid offline_access');
      const answer = await redeemCode(http, grant);
      expectAnswer('code redemption with offline_access', answer, 200);
      m.current = answer.body.refresh_token;
      move(m, 'refresh.issued', 'active');
    },
  },
  {
    name: 'refresh',
    check: (m) => m.current !== undefined,
    async run(m, { http }) {
      const answer = await refresh(m, m.current!, http);
      if (m.state === 'revoked') return expectAnswer('refresh of a revoked family', answer, 400, 'invalid_grant');
      expectAnswer('refresh', answer, 200);
      m.retired.push(m.current!);
      m.current = answer.body.refresh_token;
      move(m, 'refresh.rotated', 'active');
    },
  },
  {
    name: 'refresh with a rotated token',
    check: (m) => m.retired.length > 0,
    async run(m, { http }) {
      // RFC 9700 §4.14.2: a retired token presented again is reuse; the whole family is revoked.
      expectAnswer('reuse of a rotated refresh token', await refresh(m, m.retired[0]!, http), 400, 'invalid_grant');
      if (m.state === 'active') move(m, 'refresh.reused', 'revoked');
    },
  },
  {
    name: 'revoke refresh token',
    check: (m) => m.current !== undefined,
    async run(m, { http }) {
      const answer = await http.call(`${PREFIX}/revoke`, {
        ...clientRequest(
          { token: m.current!, token_type_hint: 'refresh_token' },
          { method: 'none', clientId: CLIENT_ID },
        ),
      });
      expectAnswer('RFC 7009 revocation', answer, 200);
      if (m.state === 'active') move(m, 'refresh.revoked', 'revoked');
    },
  },
];

/** Refresh-token families with rotation and reuse detection (RFC 6749 §6, RFC 9700 §4.14.2), at `/oauth2`. */
export const refreshFamilyModel: MachineModel<RefreshModelState> = {
  machine: 'refreshFamily',
  unreachable: {},
  start: ['authorize with offline_access'],
  create: () => ({ state: 'unissued', retired: [], confirmed: [] }),
  steps,
  stepsFor: (event) =>
    ({
      'refresh.issued': ['authorize with offline_access'],
      'refresh.rotated': ['refresh'],
      'refresh.reused': ['refresh', 'refresh with a rotated token'],
      'refresh.revoked': ['revoke refresh token'],
    })[event],
  async observe(m, { http }) {
    if (!m.current) return undefined;
    // The family's current token is active exactly while the family is (RFC 7662).
    return { state: (await active(http, m.current)) ? 'active' : 'revoked', transitions: m.confirmed };
  },
};
