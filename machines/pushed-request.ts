import { setup } from 'xstate';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * A pushed authorization request (RFC 9126), stream `par:<sha256 of the request_uri>`: the checked
 * parameters a client posted, redeemable once at the authorization endpoint before they expire.
 */
interface PushedRequest {
  issuer: string;
  clientId: string;
  /** The authorization request's parameters, as pushed. */
  params: Record<string, string>;
  expiresAt: number;
}

export type PushedRequestEvent =
  ({ type: 'par.pushed'; at: number } & PushedRequest) | { type: 'par.used'; at: number };

export interface PushedRequestContext {
  request?: PushedRequest;
  usedAt?: number;
}

type PushedRequestGuardArgs = { context: PushedRequestContext; event: PushedRequestEvent };

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const pushedRequestGuards = {
  /** RFC 9126 §2.2: the request_uri is good for `expires_in` seconds. */
  notExpired: ({ context }: PushedRequestGuardArgs, e: { at: number }) => e.at < context.request!.expiresAt,
};

type E<T extends PushedRequestEvent['type']> = Extract<PushedRequestEvent, { type: T }>;

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const pushedRequestUpdates = {
  push: (_: PushedRequestContext, e: E<'par.pushed'>) => {
    const { type, at, ...request } = e;
    void type;
    void at;
    return { request };
  },
  use: (_: PushedRequestContext, e: E<'par.used'>) => ({ usedAt: e.at }),
} satisfies Record<string, ContextUpdate<PushedRequestContext>>;

export const pushedRequestMachine = setup({
  types: { context: {} as PushedRequestContext, events: {} as PushedRequestEvent },
  guards: pushedRequestGuards,
  actions: updateActions<PushedRequestContext, PushedRequestEvent, typeof pushedRequestUpdates>(pushedRequestUpdates),
}).createMachine({
  id: 'pushedRequest',
  description:
    'A pushed authorization request (RFC 9126), stream par:<hash of the request_uri>: used once at the authorization endpoint, within 60 seconds.',
  initial: 'absent',
  context: {},
  states: {
    absent: {
      description: 'Nothing pushed.',
      on: {
        'par.pushed': {
          description: 'POST to the pushed authorization request endpoint: 201 with request_uri (RFC 9126 §2.2).',
          target: 'pushed',
          actions: 'push',
        },
      },
    },
    pushed: {
      description: 'Waiting for the authorization request that names its request_uri.',
      on: {
        'par.used': {
          description: 'The authorization endpoint took the request_uri, once, before it expired (RFC 9126 §4).',
          guard: { type: 'notExpired', params: ({ event }) => event },
          target: 'used',
          actions: 'use',
        },
      },
    },
    used: { type: 'final', description: 'Redeemed; the request_uri answers invalid_request_uri from now on.' },
  },
});
