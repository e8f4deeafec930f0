import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * A refresh-token family (RFC 6749 section 6, RFC 9700 section 4.14.2): every use rotates the token;
 * presenting a token that was already rotated away is reuse, which revokes the whole family. Only
 * hashes of token secrets are kept.
 */
interface FamilyGrant {
  issuer: string;
  clientId: string;
  sub: string;
  scope: string;
  authTime: number;
  /** RFC 8707: the resource its access tokens are bound to. */
  resource?: string;
  /** DPoP key thumbprint the family is bound to (public clients, RFC 9449 section 5). */
  jkt?: string;
  /** Epoch milliseconds after which no token of the family is accepted. */
  expiresAt: number;
}

export type RefreshEvent =
  | ({ type: 'refresh.issued'; at: number; tokenHash: string; accessJti: string } & FamilyGrant)
  | { type: 'refresh.rotated'; at: number; presentedHash: string; tokenHash: string; accessJti: string }
  | { type: 'refresh.reused'; at: number; presentedHash: string; revokesAccess: string[] }
  | { type: 'refresh.revoked'; at: number; reason: string; revokesAccess: string[] };

export interface FamilyContext {
  grant?: FamilyGrant;
  currentHash?: string;
  retiredHashes: string[];
  /** Access tokens minted from this family, revoked with it. */
  accessJtis: string[];
  revokedAt?: number;
  revokedReason?: string;
}

/** The arguments xstate gives a guard of this machine. */
type RefreshFamilyGuardArgs = { context: FamilyContext; event: RefreshEvent };

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const refreshFamilyGuards = {
  presentsCurrent: ({ context }: RefreshFamilyGuardArgs, e: { at: number; presentedHash: string }) =>
    e.presentedHash === context.currentHash && e.at < context.grant!.expiresAt,
  presentsRetired: ({ context }: RefreshFamilyGuardArgs, e: { presentedHash: string }) =>
    context.retiredHashes.includes(e.presentedHash),
};

type E<T extends RefreshEvent['type']> = Extract<RefreshEvent, { type: T }>;

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const refreshFamilyUpdates = {
  startFamily: (_: FamilyContext, event: E<'refresh.issued'>) => {
    const { type, at, tokenHash, accessJti, ...grant } = event;
    void type;
    void at;
    return { grant, currentHash: tokenHash, retiredHashes: [], accessJtis: [accessJti] };
  },
  /** RFC 9700 §4.14.2: the presented token retires; the last 50 access tokens are kept for revocation. */
  rotate: (context: FamilyContext, event: E<'refresh.rotated'>) => ({
    currentHash: event.tokenHash,
    retiredHashes: [...context.retiredHashes, event.presentedHash],
    accessJtis: [...context.accessJtis, event.accessJti].slice(-50),
  }),
  revokeForReuse: (_: FamilyContext, event: E<'refresh.reused'>) => ({ revokedAt: event.at, revokedReason: 'reuse' }),
  revoke: (_: FamilyContext, event: E<'refresh.revoked'>) => ({ revokedAt: event.at, revokedReason: event.reason }),
} satisfies Record<string, ContextUpdate<FamilyContext>>;

export const refreshFamilyMachine = setup({
  types: { context: {} as FamilyContext, events: {} as RefreshEvent },
  guards: refreshFamilyGuards,
  actions: updateActions<FamilyContext, RefreshEvent, typeof refreshFamilyUpdates>(refreshFamilyUpdates),
}).createMachine({
  id: 'refreshFamily',
  description:
    'A refresh-token family (RFC 6749 §6), stream refresh:<family id>: each use rotates the token; a retired one presented again revokes the family (RFC 9700 §4.14.2).',
  initial: 'unissued',
  context: { retiredHashes: [], accessJtis: [] },
  states: {
    unissued: {
      description: 'No family yet.',
      on: {
        'refresh.issued': {
          description: 'The first refresh token, with a code redeemed for offline_access (RFC 6749 §5.1).',
          target: 'active',
          actions: 'startFamily',
        },
      },
    },
    active: {
      description:
        'The current refresh token may be exchanged, once, before the family expires; earlier ones are retired (RFC 9700 §4.14.2).',
      on: {
        'refresh.rotated': {
          description:
            'grant_type=refresh_token with the current token: a new one replaces it (RFC 6749 §6, RFC 9700 §4.14.2).',
          guard: { type: 'presentsCurrent', params: ({ event }) => event },
          actions: 'rotate',
        },
        'refresh.reused': {
          description:
            'A retired token presented again: invalid_grant, and the whole family is revoked (RFC 9700 §4.14.2).',
          guard: { type: 'presentsRetired', params: ({ event }) => event },
          target: 'revoked',
          actions: 'revokeForReuse',
        },
        'refresh.revoked': {
          description:
            'Revoked at the revocation endpoint (RFC 7009 §2.1), or with the code that started it (RFC 6749 §10.5).',
          target: 'revoked',
          actions: 'revoke',
        },
      },
    },
    revoked: {
      type: 'final',
      description:
        'Ended by the reuse of a retired token (RFC 9700 §4.14.2) or by revocation (RFC 7009 §2.1); its access tokens are revoked with it.',
    },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const refreshFamilyStates = {
  /** The family still issues tokens. */
  active: inState('active'),
};
