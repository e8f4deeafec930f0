import { setup } from 'xstate';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * What one receiver of the revocation feed has acknowledged (RFC 8936 section 2.4): a poll with `ack`
 * records the jti values, and acknowledged tokens are not delivered to that receiver again.
 */
export interface SetReceiverContext {
  acknowledged: string[];
}

export type SetReceiverEvent = { type: 'sets.acknowledged'; at: number; jtis: string[] };

/** The arguments xstate gives a guard of this machine. */
type SetReceiverGuardArgs = { context: SetReceiverContext; event: SetReceiverEvent };

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const setReceiverGuards = {
  addsSomething: ({ context }: SetReceiverGuardArgs, e: SetReceiverEvent) =>
    e.jtis.some((j) => !context.acknowledged.includes(j)),
};

/** The machine's context updates: pure, named, importable on their own. */
export const setReceiverUpdates = {
  /** RFC 8936 §2.4: acknowledged jti values are kept, each once. */
  acknowledge: (context: SetReceiverContext, event: SetReceiverEvent) => ({
    acknowledged: [...new Set([...context.acknowledged, ...event.jtis])],
  }),
} satisfies Record<string, ContextUpdate<SetReceiverContext>>;

export const setReceiverMachine = setup({
  types: { context: {} as SetReceiverContext, events: {} as SetReceiverEvent },
  guards: setReceiverGuards,
  actions: updateActions<SetReceiverContext, SetReceiverEvent, typeof setReceiverUpdates>(setReceiverUpdates),
}).createMachine({
  id: 'setReceiver',
  description: 'What one receiver of the revocation feed has acknowledged (RFC 8936 §2.4), stream set-receiver:<id>.',
  context: { acknowledged: [] },
  on: {
    'sets.acknowledged': {
      description: 'A poll that acknowledges SETs not yet acknowledged (RFC 8936 §2.4); they are not delivered again.',
      guard: { type: 'addsSomething', params: ({ event }) => event },
      actions: 'acknowledge',
    },
  },
});
