import { assign, setup } from 'xstate';

/**
 * A value that may be used once: a private_key_jwt client assertion `jti`, a DPoP proof `jti`. The
 * stream id carries the value's hash; the first `value.used` event is accepted, every later one refused.
 */
export type SingleUseEvent = { type: 'value.used'; at: number; purpose: string };

export const singleUseMachine = setup({
  types: { context: {} as { usedAt?: number; purpose?: string }, events: {} as SingleUseEvent },
}).createMachine({
  id: 'singleUse',
  initial: 'unused',
  context: {},
  states: {
    unused: {
      on: {
        'value.used': {
          target: 'used',
          actions: assign(({ event }) => ({ usedAt: event.at, purpose: event.purpose })),
        },
      },
    },
    used: { type: 'final' },
  },
});
