import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * An authorization code (RFC 6749 section 4.1.2): issued for one client and redirect URI, redeemable
 * once before it expires (60 s). A second redemption is a replay (section 10.5): the code becomes
 * `replayed` and what it produced is revoked.
 */
interface CodeGrant {
  issuer: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  sub: string;
  authTime: number;
  nonce?: string;
  /** RFC 8707: the resource the authorization was for. */
  resource?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

interface CodeProducts {
  accessJti: string;
  refreshFamily?: string;
}

export type CodeEvent =
  | ({ type: 'code.issued'; at: number } & CodeGrant)
  | ({ type: 'code.redeemed'; at: number } & CodeProducts)
  /** `revokes` names what the code produced, so read models can revoke it. */
  | { type: 'code.replayed'; at: number; revokesAccess: string[]; revokesFamily?: string };

export interface CodeContext {
  grant?: CodeGrant;
  redeemedAt?: number;
  products?: CodeProducts;
  replayedAt?: number;
}

/** The arguments xstate gives a guard of this machine. */
type AuthorizationCodeGuardArgs = { context: CodeContext; event: CodeEvent };

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const authorizationCodeGuards = {
  unexpired: ({ context }: AuthorizationCodeGuardArgs, e: { at: number }) => e.at < context.grant!.expiresAt,
};

type E<T extends CodeEvent['type']> = Extract<CodeEvent, { type: T }>;

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const authorizationCodeUpdates = {
  recordGrant: (_: CodeContext, event: E<'code.issued'>) => {
    const { type, at, ...grant } = event;
    void type;
    void at;
    return { grant };
  },
  recordRedemption: (_: CodeContext, event: E<'code.redeemed'>) => ({
    redeemedAt: event.at,
    products: { accessJti: event.accessJti, refreshFamily: event.refreshFamily },
  }),
  recordReplay: (_: CodeContext, event: E<'code.replayed'>) => ({ replayedAt: event.at }),
} satisfies Record<string, ContextUpdate<CodeContext>>;

export const authorizationCodeMachine = setup({
  types: { context: {} as CodeContext, events: {} as CodeEvent },
  guards: authorizationCodeGuards,
  actions: updateActions<CodeContext, CodeEvent, typeof authorizationCodeUpdates>(authorizationCodeUpdates),
}).createMachine({
  id: 'authorizationCode',
  description:
    'An authorization code (RFC 6749 §4.1.2), stream code:<hash of the code>: redeemed once, within 60 s (decisions §3).',
  initial: 'unissued',
  context: {},
  states: {
    unissued: {
      description: 'No code yet.',
      on: {
        'code.issued': {
          description: 'After login and consent at the authorization endpoint (RFC 6749 §4.1.2).',
          target: 'issued',
          actions: 'recordGrant',
        },
      },
    },
    issued: {
      description:
        'Sent back with the authorization response (RFC 6749 §4.1.2), bound to its client, redirect URI and PKCE challenge.',
      on: {
        'code.redeemed': {
          description:
            'grant_type=authorization_code with the redirect URI and the PKCE verifier, before the code lapses (RFC 6749 §4.1.3, RFC 7636 §4.6).',
          guard: { type: 'unexpired', params: ({ event }) => event },
          target: 'redeemed',
          actions: 'recordRedemption',
        },
      },
    },
    redeemed: {
      description: 'Exchanged for tokens at the token endpoint (RFC 6749 §4.1.3, RFC 7636 §4.6).',
      on: {
        'code.replayed': {
          description: 'The code presented again: invalid_grant, and what it produced is revoked (RFC 6749 §10.5).',
          target: 'replayed',
          actions: 'recordReplay',
        },
      },
    },
    replayed: {
      type: 'final',
      description: 'Presented again: refused, and the tokens it produced are revoked (RFC 6749 §4.1.2, §10.5).',
    },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const authorizationCodeStates = {
  /** The code was redeemed already: a second use is a replay (RFC 6749 §4.1.2). */
  spent: inState('redeemed', 'replayed'),
  /** Redeemed once, and not yet seen replayed. */
  redeemed: inState('redeemed'),
};
