import { setup } from 'xstate';
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
  /** Epoch milliseconds. */
  expiresAt: number;
}

export type InteractionEvent =
  | ({ type: 'interaction.started'; at: number } & AuthorizationRequest)
  | { type: 'interaction.authenticated'; at: number; sub: string }
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
    authTime: event.at,
  }),
} satisfies Record<string, ContextUpdate<InteractionContext>>;

export const interactionMachine = setup({
  types: { context: {} as InteractionContext, events: {} as InteractionEvent },
  guards: interactionGuards,
  actions: updateActions<InteractionContext, InteractionEvent, typeof interactionUpdates>(interactionUpdates),
}).createMachine({
  id: 'interaction',
  initial: 'new',
  context: {},
  states: {
    new: {
      on: {
        'interaction.started': {
          target: 'login',
          actions: 'recordRequest',
        },
      },
    },
    login: {
      on: {
        'interaction.authenticated': {
          guard: { type: 'live', params: ({ event }) => event },
          target: 'consent',
          actions: 'recordLogin',
        },
      },
    },
    consent: {
      on: {
        'interaction.consented': { guard: { type: 'live', params: ({ event }) => event }, target: 'completed' },
        'interaction.declined': { guard: { type: 'live', params: ({ event }) => event }, target: 'declined' },
      },
    },
    completed: { type: 'final' },
    declined: { type: 'final' },
  },
});
