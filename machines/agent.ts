import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';
import { CLAIM_CODE_LIFETIME_MS, canDecide, pollOutcome, type Claim, type PollOutcome } from './claim-polling.ts';

/**
 * The agent lifecycle of spec section 3: registration, single-use assertion redemption, the claim
 * ceremony, revocation. Every event is a fact the log keeps; `at` is its time in epoch milliseconds.
 * Secrets never enter: claim tokens, jti values and user codes appear only as SHA-256 hashes.
 */
export interface AssertionRecord {
  /** Epoch seconds, as in the JWT. */
  exp: number;
  nbf: number;
  claimed: boolean;
  redeemedAt?: number;
}

export interface AgentContext {
  agentId: string;
  claimTokenHash: string;
  registeredAt: number;
  assertions: Record<string, AssertionRecord>;
  claim?: Claim;
  ownerEmail?: string;
  claimedAt?: number;
  revokedAt?: number;
  /** What the last accepted poll answered. */
  lastPoll?: PollOutcome;
}

export interface IssuedAssertion {
  jtiHash: string;
  exp: number;
  nbf: number;
}

export type AgentEvent =
  | { type: 'agent.registered'; at: number; agentId: string; claimTokenHash: string; assertion: IssuedAssertion }
  | { type: 'agent.assertion_redeemed'; at: number; jtiHash: string }
  | { type: 'agent.claim_started'; at: number; userCodeHash: string; email: string }
  | { type: 'agent.claim_polled'; at: number; assertion?: IssuedAssertion }
  | { type: 'agent.claim_approved'; at: number; userCodeHash: string }
  | { type: 'agent.claim_declined'; at: number; userCodeHash: string }
  | { type: 'agent.revoked'; at: number };

type E<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;

const record = (a: IssuedAssertion, claimed: boolean): Record<string, AssertionRecord> => ({
  [a.jtiHash]: { exp: a.exp, nbf: a.nbf, claimed },
});

/** Where the agent lifecycle's rows come from. */
const SPEC = 'Service spec §3 Agent lifecycle';

/** The arguments xstate gives a guard of this machine. */
type AgentGuardArgs = { context: AgentContext; event: AgentEvent };

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const agentGuards = {
  assertionRedeemable: ({ context }: AgentGuardArgs, e: E<'agent.assertion_redeemed'>) => {
    const a = context.assertions[e.jtiHash];
    const now = Math.floor(e.at / 1000);
    return a !== undefined && a.redeemedAt === undefined && now < a.exp && now >= a.nbf;
  },
  pollGrants: ({ context }: AgentGuardArgs, e: E<'agent.claim_polled'>) =>
    context.claim !== undefined && pollOutcome(context.claim, e.at) === 'granted' && e.assertion !== undefined,
  pollWithoutGrant: ({ context }: AgentGuardArgs, e: E<'agent.claim_polled'>) =>
    context.claim !== undefined && pollOutcome(context.claim, e.at) !== 'granted' && e.assertion === undefined,
  personMayDecide: ({ context }: AgentGuardArgs, e: E<'agent.claim_approved'> | E<'agent.claim_declined'>) =>
    canDecide(context.claim, e.userCodeHash, e.at),
};

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const agentUpdates = {
  register: (_: AgentContext, e: E<'agent.registered'>) => ({
    agentId: e.agentId,
    claimTokenHash: e.claimTokenHash,
    registeredAt: e.at,
    assertions: record(e.assertion, false),
  }),
  redeem: (context: AgentContext, e: E<'agent.assertion_redeemed'>) => ({
    assertions: { ...context.assertions, [e.jtiHash]: { ...context.assertions[e.jtiHash]!, redeemedAt: e.at } },
  }),
  startClaim: (_: AgentContext, e: E<'agent.claim_started'>) => ({
    claim: {
      userCodeHash: e.userCodeHash,
      email: e.email,
      startedAt: e.at,
      expiresAt: e.at + CLAIM_CODE_LIFETIME_MS,
      status: 'pending',
    } satisfies Claim,
    lastPoll: undefined,
  }),
  recordPoll: (context: AgentContext, e: E<'agent.claim_polled'>) => {
    const claim = context.claim!;
    const outcome = pollOutcome(claim, e.at);
    const status = outcome === 'expired_token' ? 'expired' : claim.status;
    return { claim: { ...claim, status, lastPollAt: e.at }, lastPoll: outcome };
  },
  grant: (context: AgentContext, e: E<'agent.claim_polled'>) => ({
    assertions: { ...context.assertions, ...record(e.assertion!, true) },
    ownerEmail: context.claim!.email,
    claimedAt: e.at,
    claim: undefined,
    lastPoll: 'granted' as const,
  }),
  approve: (context: AgentContext) => ({ claim: { ...context.claim!, status: 'approved' as const } }),
  decline: (context: AgentContext) => ({ claim: { ...context.claim!, status: 'declined' as const } }),
  revoke: (_: AgentContext, e: E<'agent.revoked'>) => ({ revokedAt: e.at, claim: undefined }),
} satisfies Record<string, ContextUpdate<AgentContext>>;

export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentEvent,
  },
  guards: agentGuards,
  actions: updateActions<AgentContext, AgentEvent, typeof agentUpdates>(agentUpdates),
}).createMachine({
  id: 'agent',
  description:
    'One registered agent (service spec §3, Agent lifecycle), stream agent:<id>: registration, assertions, the claim ceremony, revocation.',
  initial: 'unregistered',
  context: { agentId: '', claimTokenHash: '', registeredAt: 0, assertions: {} },
  states: {
    unregistered: {
      description: `No agent yet. ${SPEC}, row "(no agent)".`,
      on: {
        'agent.registered': {
          target: 'unclaimed',
          description: `POST /agentauth/identity (type anonymous). ${SPEC}, row "(no agent)".`,
          actions: 'register',
        },
      },
    },
    unclaimed: {
      description: `Registered, not bound to a person: tokens carry agent:read. ${SPEC}, row "unclaimed agent".`,
      on: {
        'agent.assertion_redeemed': {
          description: `POST /agentauth/token, jwt-bearer grant; a jti already seen is invalid_grant. ${SPEC}, rows "assertion unredeemed" and "assertion redeemed".`,
          guard: { type: 'assertionRedeemable', params: ({ event }) => event },
          actions: 'redeem',
        },
        'agent.claim_started': {
          target: 'claiming',
          description: `POST /agentauth/identity/claim with the claim token. ${SPEC}, row "unclaimed agent".`,
          actions: 'startClaim',
        },
        'agent.revoked': {
          target: 'revoked',
          description: `POST /agentauth/revoke with the claim token (RFC 7009). ${SPEC}, row "any agent".`,
          actions: 'revoke',
        },
      },
    },
    claiming: {
      description: `A claim is pending: the person may approve or decline; the agent polls. ${SPEC}, rows "claim pending".`,
      on: {
        'agent.assertion_redeemed': {
          description: `POST /agentauth/token, jwt-bearer grant; a jti already seen is invalid_grant. ${SPEC}, rows "assertion unredeemed" and "assertion redeemed".`,
          guard: { type: 'assertionRedeemable', params: ({ event }) => event },
          actions: 'redeem',
        },
        'agent.claim_started': {
          target: 'claiming',
          reenter: true,
          description: `A new claim start replaces the pending one with a fresh user code. ${SPEC}, rows "claim pending".`,
          actions: 'startClaim',
        },
        'agent.claim_polled': [
          {
            guard: { type: 'pollGrants', params: ({ event }) => event },
            target: 'claimed',
            description: `A poll after the person approved returns agent:read agent:write. ${SPEC}, row "claim pending" (approved).`,
            actions: 'grant',
          },
          {
            guard: { type: 'pollWithoutGrant', params: ({ event }) => event },
            description: `authorization_pending, slow_down or expired_token (RFC 8628 §3.5). ${SPEC}, rows "claim pending".`,
            actions: 'recordPoll',
          },
        ],
        'agent.claim_approved': {
          description: `The person approves the pending claim by its user code, before it lapses. ${SPEC}, row "claim pending" (approve).`,
          guard: { type: 'personMayDecide', params: ({ event }) => event },
          actions: 'approve',
        },
        'agent.claim_declined': {
          description: `The person declines the pending claim: polls answer access_denied. ${SPEC}, row "claim pending" (decline).`,
          guard: { type: 'personMayDecide', params: ({ event }) => event },
          actions: 'decline',
        },
        'agent.revoked': {
          target: 'revoked',
          description: `POST /agentauth/revoke with the claim token (RFC 7009). ${SPEC}, row "any agent".`,
          actions: 'revoke',
        },
      },
    },
    claimed: {
      description: `Bound to a person: tokens carry agent:read agent:write. ${SPEC}, row "claim pending" (approved).`,
      on: {
        'agent.assertion_redeemed': {
          description: `POST /agentauth/token, jwt-bearer grant; a jti already seen is invalid_grant. ${SPEC}, rows "assertion unredeemed" and "assertion redeemed".`,
          guard: { type: 'assertionRedeemable', params: ({ event }) => event },
          actions: 'redeem',
        },
        'agent.revoked': {
          target: 'revoked',
          description: `POST /agentauth/revoke with the claim token (RFC 7009). ${SPEC}, row "any agent".`,
          actions: 'revoke',
        },
      },
    },
    revoked: {
      type: 'final',
      description: `POST /agentauth/revoke: assertions are no longer redeemed. ${SPEC}, row "any agent".`,
    },
  },
});

export const scopeFor = (claimed: boolean) => (claimed ? 'agent:read agent:write' : 'agent:read');

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const agentStates = {
  /** A person claimed the agent. */
  claimed: inState('claimed'),
  /** A claim is under way. */
  claiming: inState('claiming'),
  /** Revoked for good. */
  revoked: inState('revoked'),
};
