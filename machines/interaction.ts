import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * One authorization request between the authorization endpoint and the redirect back to the client:
 * the person signs in, then consents or declines. Lives 10 minutes; completes once.
 */
export interface AuthorizationRequest {
  issuer: string;
  clientId: string;
  redirectUri: string;
  responseMode: 'query' | 'form_post';
  scope: string;
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  prompt?: string;
  /** OIDC Core §3.1.2.1 `max_age`, in seconds. */
  maxAge?: number;
  /** RFC 8707: the resource the tokens will be audience-bound to. */
  resource?: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export type InteractionEvent =
  | ({ type: 'interaction.started'; at: number } & AuthorizationRequest)
  | {
      type: 'interaction.authenticated';
      at: number;
      sub: string;
      /** Answered from the sign-in session (`sign-in-session:`), which says when the person signed in. */
      session?: { authTime: number };
    }
  | { type: 'interaction.consented'; at: number; codeHash: string }
  | { type: 'interaction.declined'; at: number };

export interface InteractionContext {
  request?: AuthorizationRequest;
  sub?: string;
  authTime?: number;
}

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const interactionGuards = {
  /** Login and consent happen only while the authorization request lives. */
  live: ({ context }: { context: InteractionContext }, e: { at: number }) => e.at < context.request!.expiresAt,
};

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const interactionUpdates = {
  recordRequest: (_: InteractionContext, event: Extract<InteractionEvent, { type: 'interaction.started' }>) => {
    const { type, at, ...request } = event;
    void type;
    void at;
    return { request };
  },
  recordLogin: (_: InteractionContext, event: Extract<InteractionEvent, { type: 'interaction.authenticated' }>) => ({
    sub: event.sub,
    authTime: event.session?.authTime ?? event.at,
  }),
} satisfies Record<string, ContextUpdate<InteractionContext>>;

export const interactionMachine = setup({
  types: { context: {} as InteractionContext, events: {} as InteractionEvent },
  guards: interactionGuards,
  actions: updateActions<InteractionContext, InteractionEvent, typeof interactionUpdates>(interactionUpdates),
}).createMachine({
  id: 'interaction',
  description:
    'One authorization request between the authorization endpoint and the redirect back (RFC 6749 §4.1.1-§4.1.2), stream interaction:<id>: lives 10 minutes, completes once.',
  initial: 'new',
  context: {},
  states: {
    new: {
      description: 'No request yet.',
      on: {
        'interaction.started': {
          description: 'GET /authorize with a valid request: the person is sent to sign in (RFC 6749 §4.1.1).',
          target: 'login',
          actions: 'recordRequest',
        },
      },
    },
    login: {
      description: 'The person signs in as a demo user (decisions §3).',
      on: {
        'interaction.authenticated': {
          description:
            "The demo user's password checked, or the person's sign-in session used (OIDC Core §3.1.2.1), while the request lives (decisions §3).",
          guard: { type: 'live', params: ({ event }) => event },
          target: 'consent',
          actions: 'recordLogin',
        },
      },
    },
    consent: {
      description: 'The person approves or declines what the client asks for.',
      on: {
        'interaction.consented': {
          description: 'Approved while the request lives: a code goes back (RFC 6749 §4.1.2).',
          guard: { type: 'live', params: ({ event }) => event },
          target: 'completed',
        },
        'interaction.declined': {
          description: 'Declined: access_denied goes back (RFC 6749 §4.1.2.1).',
          guard: { type: 'live', params: ({ event }) => event },
          target: 'declined',
        },
      },
    },
    completed: { type: 'final', description: 'Approved: the code goes back to the client (RFC 6749 §4.1.2).' },
    declined: { type: 'final', description: 'Declined: access_denied goes back to the client (RFC 6749 §4.1.2.1).' },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
const interactionStates = {
  /** The person is still at the login or the consent page. */
  awaitingPerson: inState('login', 'consent'),
};

/** The page the person is at (login or consent), or undefined once the request was answered. */
export const interactionPage = (snapshot: { value: unknown }): 'login' | 'consent' | undefined =>
  interactionStates.awaitingPerson(snapshot) ? (snapshot.value as 'login' | 'consent') : undefined;
