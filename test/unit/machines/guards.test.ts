import { describe, expect, it } from 'vitest';
import { agentGuards, agentMachine } from '../../../machines/agent.ts';
import { authorizationCodeGuards, authorizationCodeMachine } from '../../../machines/authorization-code.ts';
import { flowRunGuards, flowRunMachine } from '../../../machines/flow-run.ts';
import { MACHINES_BY_STREAM_PREFIX } from '../../../machines/index.ts';
import { interactionGuards, interactionMachine } from '../../../machines/interaction.ts';
import { issuanceGuards, issuanceMachine } from '../../../machines/issuance.ts';
import { presentationGuards, presentationMachine } from '../../../machines/presentation.ts';
import { refreshFamilyGuards, refreshFamilyMachine } from '../../../machines/refresh-family.ts';
import { setReceiverGuards, setReceiverMachine } from '../../../machines/set-receiver.ts';
import { ssfReceiverGuards, ssfReceiverMachine } from '../../../machines/ssf-receiver.ts';
import { ssfStreamGuards, ssfStreamMachine } from '../../../machines/ssf-stream.ts';
import { oauthClientGuards, oauthClientMachine } from '../../../machines/oauth-client.ts';
import { pushedRequestGuards, pushedRequestMachine } from '../../../machines/pushed-request.ts';
import {
  statusListGuards,
  statusListMachine,
  statusListRegistryGuards,
  statusListRegistryMachine,
} from '../../../machines/status-list.ts';
import { svidRotationGuards, svidRotationMachine } from '../../../machines/svid-rotation.ts';
import { walletExchangeGuards, walletExchangeMachine } from '../../../machines/wallet-exchange.ts';
import {
  scimAgentMachine,
  scimGroupMachine,
  scimResourceGuards,
  scimUserMachine,
} from '../../../machines/scim-resource.ts';
import { scimTenantGuards, scimTenantMachine } from '../../../machines/scim-tenant.ts';
import { signInSessionGuards, signInSessionMachine } from '../../../machines/sign-in-session.ts';
import { clientPlacesGuards, clientPlacesMachine } from '../../../machines/client-places.ts';
import { machineDefinition } from '../../../services/machines/definition.ts';

// Issue 32: every guard is a pure, named function that a suite can import and call on its own.
const EXPORTED = [
  [agentMachine, agentGuards],
  [authorizationCodeMachine, authorizationCodeGuards],
  [flowRunMachine, flowRunGuards],
  [interactionMachine, interactionGuards],
  [issuanceMachine, issuanceGuards],
  [presentationMachine, presentationGuards],
  [refreshFamilyMachine, refreshFamilyGuards],
  [setReceiverMachine, setReceiverGuards],
  [ssfStreamMachine, ssfStreamGuards],
  [ssfReceiverMachine, ssfReceiverGuards],
  [statusListMachine, statusListGuards],
  [statusListRegistryMachine, statusListRegistryGuards],
  [oauthClientMachine, oauthClientGuards],
  [pushedRequestMachine, pushedRequestGuards],
  [svidRotationMachine, svidRotationGuards],
  [walletExchangeMachine, walletExchangeGuards],
  [scimUserMachine, scimResourceGuards],
  [scimGroupMachine, scimResourceGuards],
  [scimAgentMachine, scimResourceGuards],
  [scimTenantMachine, scimTenantGuards],
  [signInSessionMachine, signInSessionGuards],
  [clientPlacesMachine, clientPlacesGuards],
] as const;

describe('machine guards', () => {
  it('are exactly the guards each machine runs, and no machine has an anonymous one', () => {
    for (const [machine, guards] of EXPORTED)
      expect(machine.implementations.guards, machine.id).toEqual(Object.fromEntries(Object.entries(guards)));
    for (const machine of Object.values(MACHINES_BY_STREAM_PREFIX)) {
      const definition = machineDefinition(machine);
      const used = [...definition.on, ...Object.values(definition.states).flatMap((s) => s.on)];
      expect(
        used.filter((t) => t.guard === 'inline'),
        machine.id,
      ).toEqual([]);
      const exported = EXPORTED.find(([m]) => m === machine)?.[1] ?? {};
      for (const guard of definition.guards) expect(Object.keys(exported), machine.id).toContain(guard.name);
    }
  });

  it('answer from their arguments alone (time arrives in the event)', () => {
    const deferred = {
      context: { readyAt: 1_000 } as never,
      event: { type: 'issuance.deferred_collected', at: 0 } as never,
    };
    expect(issuanceGuards.deferredReady(deferred)).toBe(false);
    expect(
      issuanceGuards.deferredReady({ ...deferred, event: { type: 'issuance.deferred_collected', at: 1_000 } as never }),
    ).toBe(true);
    const request = { context: { request: { expiresAt: 600 } } as never };
    expect(interactionGuards.live(request, { at: 599 })).toBe(true);
    expect(interactionGuards.live(request, { at: 600 })).toBe(false);
    expect(
      flowRunGuards.succeeded({ context: {} as never, event: { type: 'run.finished', at: 0, status: 'failed' } }),
    ).toBe(false);
  });
});
