import { setup } from 'xstate';
import { updateActions, type ContextUpdate } from './updates.ts';

/** One SET as the receiver judged it. */
export interface ReceivedSet {
  at: number;
  jti?: string;
  verdict: 'accepted' | 'refused';
  /** RFC 8935 §2.4 error code when refused. */
  err?: string;
  description?: string;
  /** The decoded claims, when the SET could be decoded. */
  claims?: Record<string, unknown>;
}

export interface SsfReceiverContext {
  transmitter: string;
  audience: string;
  /** SHA-256 of the bearer secret the transmitter must send; never the secret. */
  authHash: string;
  /** The last 100 SETs received, newest last. */
  received: ReceivedSet[];
  /** jti values accepted (the last 1,000), for replay detection. */
  accepted: string[];
}

export type SsfReceiverEvent =
  | { type: 'ssf_receiver.created'; at: number; transmitter: string; audience: string; auth_hash: string }
  | ({ type: 'ssf_receiver.received' } & ReceivedSet);

type E<T extends SsfReceiverEvent['type']> = Extract<SsfReceiverEvent, { type: T }>;
const KEPT = 100;
const JTIS_KEPT = 1_000;

/** The machine's guards (none decide here: every push is recorded with its verdict). */
export const ssfReceiverGuards = {};

/** The machine's context updates: pure, named, importable on their own. */
export const ssfReceiverUpdates = {
  recordCreation: (_: SsfReceiverContext, e: E<'ssf_receiver.created'>) => ({
    transmitter: e.transmitter,
    audience: e.audience,
    authHash: e.auth_hash,
  }),
  recordSet: (context: SsfReceiverContext, e: E<'ssf_receiver.received'>) => {
    const { type: _type, ...received } = e;
    return {
      received: [...context.received, received].slice(-KEPT),
      accepted:
        e.verdict === 'accepted' && e.jti !== undefined
          ? [...context.accepted, e.jti].slice(-JTIS_KEPT)
          : context.accepted,
    };
  },
} satisfies Record<string, ContextUpdate<SsfReceiverContext>>;

/**
 * Portico's own SET receiver (RFC 8935), stream `ssf-receiver:<id>`: what it was told to trust, and
 * every SET pushed to it with the verdict, so a learner sees both ends of a stream.
 */
export const ssfReceiverMachine = setup({
  types: { context: {} as SsfReceiverContext, events: {} as SsfReceiverEvent },
  guards: ssfReceiverGuards,
  actions: updateActions<SsfReceiverContext, SsfReceiverEvent, typeof ssfReceiverUpdates>(ssfReceiverUpdates),
}).createMachine({
  id: 'ssfReceiver',
  description: "Portico's SET receiver for learners (RFC 8935 push), stream ssf-receiver:<id>.",
  initial: 'new',
  context: { transmitter: '', audience: '', authHash: '', received: [], accepted: [] },
  states: {
    new: {
      description: 'No receiver yet.',
      on: {
        'ssf_receiver.created': {
          description:
            'POST /ssf/receivers: an endpoint, its bearer secret, the transmitter and audience it trusts (docs/ssf.md).',
          target: 'listening',
          actions: 'recordCreation',
        },
      },
    },
    listening: {
      description: 'SETs are checked and recorded as they are pushed (RFC 8935 §2).',
      on: {
        'ssf_receiver.received': {
          description:
            'A push: typ, signature, iss, aud and jti replay checked; 202 or 400 with an RFC 8935 error (§2.3, §2.4).',
          actions: 'recordSet',
        },
      },
    },
  },
});
