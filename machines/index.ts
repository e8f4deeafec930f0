import type { AnyStateMachine } from 'xstate';
import { agentMachine } from './agent.ts';
import { setReceiverMachine } from './set-receiver.ts';
import { authorizationCodeMachine } from './authorization-code.ts';
import { interactionMachine } from './interaction.ts';
import { refreshFamilyMachine } from './refresh-family.ts';
import { singleUseMachine } from './single-use.ts';
import { clientPlacesMachine } from './client-places.ts';
import { flowRunMachine } from './flow-run.ts';
import { spiffeModeMachine } from './spiffe-mode.ts';
import { svidRotationMachine } from './svid-rotation.ts';
import { issuanceMachine } from './issuance.ts';
import { presentationMachine } from './presentation.ts';
import { walletExchangeMachine } from './wallet-exchange.ts';
import { ssfStreamMachine } from './ssf-stream.ts';
import { ssfReceiverMachine } from './ssf-receiver.ts';
import { statusListMachine, statusListRegistryMachine } from './status-list.ts';
import { oauthClientMachine } from './oauth-client.ts';
import { pushedRequestMachine } from './pushed-request.ts';
import { tokenRunsMachine } from './token-runs.ts';
import { scimAgentMachine, scimGroupMachine, scimUserMachine } from './scim-resource.ts';
import { scimTenantMachine } from './scim-tenant.ts';
import { samlAuthnMachine, samlLoginMachine } from './saml-exchange.ts';
import { signInSessionMachine } from './sign-in-session.ts';
import { samlServiceProviderMachine } from './saml-service-provider.ts';

/**
 * The machine that folds each kind of stream, by the prefix of its stream id (`agent:<id>` etc.).
 * Replay and consistency checks use this; a new kind of actor adds its machine here.
 */
export const MACHINES_BY_STREAM_PREFIX: Record<string, AnyStateMachine> = {
  agent: agentMachine,
  'set-receiver': setReceiverMachine,
  code: authorizationCodeMachine,
  refresh: refreshFamilyMachine,
  interaction: interactionMachine,
  once: singleUseMachine,
  places: clientPlacesMachine,
  run: flowRunMachine,
  'spiffe-mode': spiffeModeMachine,
  'x509-svid': svidRotationMachine,
  issuance: issuanceMachine,
  presentation: presentationMachine,
  'wallet-exchange': walletExchangeMachine,
  'ssf-stream': ssfStreamMachine,
  'ssf-receiver': ssfReceiverMachine,
  'status-list': statusListMachine,
  'status-lists': statusListRegistryMachine,
  client: oauthClientMachine,
  par: pushedRequestMachine,
  'token-runs': tokenRunsMachine,
  'scim-user': scimUserMachine,
  'scim-group': scimGroupMachine,
  'scim-agent': scimAgentMachine,
  'scim-tenant': scimTenantMachine,
  'saml-authn': samlAuthnMachine,
  'saml-login': samlLoginMachine,
  'sign-in-session': signInSessionMachine,
  'saml-sp': samlServiceProviderMachine,
};

export function machineForStream(streamId: string): AnyStateMachine | undefined {
  const prefix = streamId.slice(0, streamId.indexOf(':'));
  return MACHINES_BY_STREAM_PREFIX[prefix];
}
