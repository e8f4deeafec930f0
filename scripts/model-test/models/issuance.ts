import { transitionKey, type MachineModel } from '../model.ts';
import { observeStream } from '../streams.ts';
import { issuanceSteps, type IssuanceModelState } from './issuance-steps.ts';

const LIFETIME = 'needs the clock past a lifetime (the offer 600 s, the request_uri 90 s, the code 60 s)';
const EXPIRY_SOURCES = ['offered', 'offer_fetched', 'authorization_requested', 'code_issued'];
const AUTHORIZATION_EVENTS = new Set([
  'issuance.authorization_requested',
  'issuance.authorization_started',
  'issuance.code_issued',
  'issuance.authorization_declined',
]);

/** The OpenID4VCI issuer's offers (`/oid4vci`): pre-authorized, authorization code, deferred, notified. */
export const issuanceModel: MachineModel<IssuanceModelState> = {
  machine: 'issuance',
  unreachable: {
    ...Object.fromEntries(EXPIRY_SOURCES.map((from) => [transitionKey(from, 'issuance.expired', 'expired'), LIFETIME])),
    [transitionKey('*', 'issuance.nonce_challenged', '*')]:
      'only where the deployment demands DPoP nonces (DPOP_NONCE_REQUIRED=true); the tester starts it without',
  },
  anywhereFrom: 'offered',
  start: ['offer', 'offer, deferred', 'offer, authorization code', 'push an authorization request'],
  create: () => ({ state: 'new', deferred: false, txFailures: 0, accepted: false, correlated: false, statuses: [] }),
  steps: issuanceSteps,
  stepsFor(event, guard, goal) {
    switch (event) {
      case 'issuance.offered':
        // The offer the goal needs: deferred for a deferral, the code grant for a pushed request.
        if (goal.from === 'deferred' || goal.event === 'issuance.deferred') return ['offer, deferred'];
        if (AUTHORIZATION_EVENTS.has(goal.event)) return ['offer, authorization code'];
        return ['offer'];
      case 'issuance.offer_fetched':
        return ['fetch the offer'];
      case 'issuance.tx_code_rejected':
        return Array(guard === 'lastTxCodeAttempt' ? 5 : 1).fill('token with a wrong tx_code');
      case 'issuance.token_issued':
        return [guard === 'codeLive' ? 'token with the code' : 'token'];
      case 'issuance.authorization_requested':
        return [
          guard === 'offersAuthorizationCode'
            ? 'push an authorization request for the offer'
            : 'push an authorization request',
        ];
      case 'issuance.authorization_started':
        // One step signs in and consents (or declines): it takes both transitions.
        return goal.event === 'issuance.authorization_declined' ? [] : ['authorize'];
      case 'issuance.code_issued':
        return [];
      case 'issuance.authorization_declined':
        return ['authorize, and decline'];
      case 'issuance.credential_issued':
      case 'issuance.deferred':
        return ['credential'];
      case 'issuance.deferred_collected':
        return ['collect the deferred credential when ready'];
      case 'issuance.notified':
        return ['notify credential_accepted'];
      case 'issuance.correlated':
        return ['name a wallet exchange'];
      case 'credential.status_changed':
        // Taken from the offer (anywhereFrom): a credential is issued first, then its status changed.
        return ['token', 'credential', 'set credential 0 suspended'];
    }
    return undefined;
  },
  // The offer id (or the pushed request's stream) is the capability that reads the stream.
  observe: (m, { http }) => (m.streamId ? observeStream(http, m.streamId, 'new') : Promise.resolve(undefined)),
};
