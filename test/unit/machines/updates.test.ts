import { describe, expect, it } from 'vitest';
import { agentUpdates } from '../../../machines/agent.ts';
import { authorizationCodeUpdates } from '../../../machines/authorization-code.ts';
import { flowRunUpdates } from '../../../machines/flow-run.ts';
import { MACHINES_BY_STREAM_PREFIX } from '../../../machines/index.ts';
import { interactionUpdates } from '../../../machines/interaction.ts';
import { issuanceUpdates, type IssuanceContext } from '../../../machines/issuance.ts';
import { presentationUpdates } from '../../../machines/presentation.ts';
import { refreshFamilyUpdates, type FamilyContext } from '../../../machines/refresh-family.ts';
import { setReceiverUpdates } from '../../../machines/set-receiver.ts';
import { singleUseUpdates } from '../../../machines/single-use.ts';
import { clientPlacesUpdates } from '../../../machines/client-places.ts';
import { spiffeModeUpdates } from '../../../machines/spiffe-mode.ts';
import { ssfReceiverUpdates } from '../../../machines/ssf-receiver.ts';
import { ssfStreamUpdates } from '../../../machines/ssf-stream.ts';
import { oauthClientUpdates } from '../../../machines/oauth-client.ts';
import { pushedRequestUpdates } from '../../../machines/pushed-request.ts';
import { tokenRunsUpdates } from '../../../machines/token-runs.ts';
import { statusListRegistryUpdates, statusListUpdates } from '../../../machines/status-list.ts';
import { svidRotationUpdates } from '../../../machines/svid-rotation.ts';
import { walletExchangeUpdates } from '../../../machines/wallet-exchange.ts';
import { scimResourceUpdates } from '../../../machines/scim-resource.ts';
import { scimTenantUpdates } from '../../../machines/scim-tenant.ts';
import { samlAuthnUpdates, samlLoginUpdates } from '../../../machines/saml-exchange.ts';
import { signInSessionUpdates } from '../../../machines/sign-in-session.ts';
import { samlServiceProviderUpdates } from '../../../machines/saml-service-provider.ts';
import { machineDefinition } from '../../../services/machines/definition.ts';

// Issue 32: every machine's context updates are pure, named functions exported from machines/<name>.ts,
// the very ones its transitions name in the published definition.
const UPDATES: Record<string, Record<string, unknown>> = {
  agent: agentUpdates,
  authorizationCode: authorizationCodeUpdates,
  flowRun: flowRunUpdates,
  interaction: interactionUpdates,
  issuance: issuanceUpdates,
  presentation: presentationUpdates,
  refreshFamily: refreshFamilyUpdates,
  setReceiver: setReceiverUpdates,
  singleUse: singleUseUpdates,
  spiffeMode: spiffeModeUpdates,
  ssfReceiver: ssfReceiverUpdates,
  ssfStream: ssfStreamUpdates,
  statusList: statusListUpdates,
  statusListRegistry: statusListRegistryUpdates,
  oauthClient: oauthClientUpdates,
  pushedRequest: pushedRequestUpdates,
  tokenRuns: tokenRunsUpdates,
  clientPlaces: clientPlacesUpdates,
  svidRotation: svidRotationUpdates,
  'wallet-exchange': walletExchangeUpdates,
  scimUser: scimResourceUpdates,
  scimGroup: scimResourceUpdates,
  scimAgent: scimResourceUpdates,
  scimTenant: scimTenantUpdates,
  samlAuthn: samlAuthnUpdates,
  samlLogin: samlLoginUpdates,
  signInSession: signInSessionUpdates,
  samlServiceProvider: samlServiceProviderUpdates,
};

const deepFreeze = <T>(value: T): T => {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
};

describe('context updates as data', () => {
  it.each(Object.values(MACHINES_BY_STREAM_PREFIX).map((m) => [m.id, m] as const))(
    '%s: its definition names exactly the updates its module exports, and no transition assigns inline',
    (id, machine) => {
      const exported = UPDATES[id];
      expect(exported, `${id} exports <machine>Updates`).toBeDefined();
      const definition = machineDefinition(machine);
      expect([...definition.updates].sort()).toEqual(Object.keys(exported!).sort());
      const transitions = [...definition.on, ...Object.values(definition.states).flatMap((s) => s.on)];
      // A transition that changes the context names its update (xstate marks an anonymous assign `xstate.assign`).
      for (const t of transitions) for (const u of t.updates ?? []) expect(u).not.toMatch(/^xstate\./);
    },
  );

  it('an update is a pure function: it answers the fields it changes and leaves its inputs alone', () => {
    const family = deepFreeze({
      retiredHashes: ['t0'],
      accessJtis: ['j0', 'j1'],
      currentHash: 't1',
    }) as FamilyContext;
    const event = deepFreeze({
      type: 'refresh.rotated' as const,
      at: 5,
      presentedHash: 't1',
      tokenHash: 't2',
      accessJti: 'j2',
    });
    expect(refreshFamilyUpdates.rotate(family, event)).toEqual({
      currentHash: 't2',
      retiredHashes: ['t0', 't1'],
      accessJtis: ['j0', 'j1', 'j2'],
    });
    const offer = deepFreeze({ txCodeFailures: 4, credentialAccepted: true }) as IssuanceContext;
    expect(issuanceUpdates.countTxCodeFailure(offer)).toEqual({ txCodeFailures: 5 });
    expect(
      issuanceUpdates.recordNotification(
        offer,
        deepFreeze({ type: 'issuance.notified', at: 1, event: 'credential_failure' }),
      ),
    ).toEqual({ notificationEvent: 'credential_failure', credentialAccepted: true });
    expect(
      spiffeModeUpdates.recordFailure(
        deepFreeze({ failures: 2 }),
        deepFreeze({ type: 'mode.connect_failed', at: 1_000, reason: 'x' }),
      ),
    ).toEqual({
      failures: 3,
      lastError: 'x',
      retryAt: 5_000,
    });
  });
});
