import { assign, setup } from 'xstate';

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

export const interactionMachine = setup({
  types: { context: {} as InteractionContext, events: {} as InteractionEvent },
  guards: interactionGuards,
}).createMachine({
  id: 'interaction',
  initial: 'new',
  context: {},
  states: {
    new: {
      on: {
        'interaction.started': {
          target: 'login',
          actions: assign(({ event }) => {
            const { type, at, ...request } = event;
            void type;
            void at;
            return { request };
          }),
        },
      },
    },
    login: {
      on: {
        'interaction.authenticated': {
          guard: { type: 'live', params: ({ event }) => event },
          target: 'consent',
          actions: assign(({ event }) => ({ sub: event.sub, authTime: event.at })),
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
