import { setup } from 'xstate';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * A value that may be used once: a private_key_jwt client assertion `jti`, a DPoP proof `jti`. The
 * stream id carries the value's hash; the first `value.used` event is accepted, every later one refused.
 */
export type SingleUseEvent = { type: 'value.used'; at: number; purpose: string };

export interface SingleUseContext {
  usedAt?: number;
  purpose?: string;
}

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const singleUseUpdates = {
  recordUse: (_: SingleUseContext, event: SingleUseEvent) => ({ usedAt: event.at, purpose: event.purpose }),
} satisfies Record<string, ContextUpdate<SingleUseContext>>;

export const singleUseMachine = setup({
  types: { context: {} as SingleUseContext, events: {} as SingleUseEvent },
  actions: updateActions<SingleUseContext, SingleUseEvent, typeof singleUseUpdates>(singleUseUpdates),
}).createMachine({
  id: 'singleUse',
  description:
    'A value used at most once, stream once:<hash>: a client assertion jti (RFC 7523 §3, item 7), a DPoP proof jti (RFC 9449 §11.1).',
  initial: 'unused',
  context: {},
  states: {
    unused: {
      description: 'Not seen yet.',
      on: {
        'value.used': {
          description: 'First use; a later one is a replay (RFC 7523 §3 item 7, RFC 9449 §11.1).',
          target: 'used',
          actions: 'recordUse',
        },
      },
    },
    used: { type: 'final', description: 'Seen once; every later use is refused as a replay.' },
  },
});
