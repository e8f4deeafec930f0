import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * The X.509-SVID of one SPIFFE ID as the workload identity service saw it on the Workload API's
 * X.509 stream (stream `x509-svid:<spiffe id>`). The first SVID is `observed`; every later SVID with a
 * different serial number is a rotation. The same SVID sent again (e.g. after a reconnection) is no
 * rotation and is refused. Only public facts are kept: serial, validity, fingerprint; never the key.
 */
export interface SvidFacts {
  spiffeId: string;
  serial: string;
  notBefore: number;
  notAfter: number;
  /** SHA-256 of the leaf certificate's DER, hex. */
  fingerprint: string;
}

/** Whether a stored event's data carries an SVID's facts (the log keeps events as JSON). */
const hasSvidFacts = (
  data: Record<string, unknown>,
): data is Record<string, unknown> & SvidFacts & { previousSerial?: string } =>
  typeof data.spiffeId === 'string' &&
  typeof data.serial === 'string' &&
  typeof data.notBefore === 'number' &&
  typeof data.notAfter === 'number' &&
  typeof data.fingerprint === 'string' &&
  (data.previousSerial === undefined || typeof data.previousSerial === 'string');

/** A stored `svid.observed` or `svid.rotated` event's facts; anything else is refused. */
export function svidFactsOf(event: { data: Record<string, unknown> }): SvidFacts & { previousSerial?: string } {
  if (!hasSvidFacts(event.data)) throw new TypeError('an SVID event without its facts');
  return event.data;
}

export type SvidRotationEvent =
  | ({ type: 'svid.observed'; at: number } & SvidFacts)
  | ({ type: 'svid.rotated'; at: number; previousSerial: string } & SvidFacts);

export interface SvidRotationContext {
  spiffeId?: string;
  serial?: string;
  notBefore?: number;
  notAfter?: number;
  fingerprint?: string;
  firstObservedAt?: number;
  lastRotatedAt?: number;
  rotations: number;
}

const facts = (event: SvidFacts) => ({
  spiffeId: event.spiffeId,
  serial: event.serial,
  notBefore: event.notBefore,
  notAfter: event.notAfter,
  fingerprint: event.fingerprint,
});

/** The arguments xstate gives a guard of this machine. */
type SvidRotationGuardArgs = { context: SvidRotationContext; event: SvidRotationEvent };

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const svidRotationGuards = {
  /** A rotation names the serial it replaces and brings a different one. */
  replacesCurrent: ({ context, event }: SvidRotationGuardArgs) =>
    event.type === 'svid.rotated' && event.previousSerial === context.serial && event.serial !== context.serial,
};

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const svidRotationUpdates = {
  recordFirst: (_: SvidRotationContext, event: Extract<SvidRotationEvent, { type: 'svid.observed' }>) => ({
    ...facts(event),
    firstObservedAt: event.at,
  }),
  recordRotation: (context: SvidRotationContext, event: Extract<SvidRotationEvent, { type: 'svid.rotated' }>) => ({
    ...facts(event),
    lastRotatedAt: event.at,
    rotations: context.rotations + 1,
  }),
} satisfies Record<string, ContextUpdate<SvidRotationContext>>;

export const svidRotationMachine = setup({
  types: { context: {} as SvidRotationContext, events: {} as SvidRotationEvent },
  guards: svidRotationGuards,
  actions: updateActions<SvidRotationContext, SvidRotationEvent, typeof svidRotationUpdates>(svidRotationUpdates),
}).createMachine({
  id: 'svidRotation',
  description:
    "The X.509-SVID of one SPIFFE ID as seen on the Workload API's X.509 stream (decisions §7), stream x509-svid:<spiffe id>; only public facts are kept.",
  initial: 'unseen',
  context: { rotations: 0 },
  states: {
    unseen: {
      description: 'No SVID yet.',
      on: {
        'svid.observed': {
          description: 'The first X.509-SVID seen for this SPIFFE ID (decisions §7).',
          target: 'tracking',
          actions: 'recordFirst',
        },
      },
    },
    tracking: {
      description:
        'The current SVID is known; a different serial is a rotation, the same one again is not (decisions §7).',
      on: {
        'svid.rotated': {
          description:
            'A new serial that replaces the current one: a rotation, shown by /spiffe/demo/rotation (decisions §7).',
          guard: 'replacesCurrent',
          target: 'tracking',
          actions: 'recordRotation',
        },
      },
    },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const svidRotationStates = {
  /** No SVID of this SPIFFE ID observed yet. */
  unseen: inState('unseen'),
};
