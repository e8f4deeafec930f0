import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';
import type { SsfStreamContext, SsfStreamEvent } from './ssf-stream-types.ts';

export type { PendingSet, SsfDelivery, SsfStreamContext, SsfStreamEvent } from './ssf-stream-types.ts';

type E<T extends SsfStreamEvent['type']> = Extract<SsfStreamEvent, { type: T }>;
type GuardArgs = { context: SsfStreamContext; event: SsfStreamEvent };

const MAX_ERRORS = 20;
const QUEUED_KEPT = 10_000;

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const ssfStreamGuards = {
  /** A subject is added once (SSF 1.0 §8.1.3.2). */
  newSubject: ({ context, event }: GuardArgs) =>
    event.type === 'ssf.subject_added' && !context.subjects.some((s) => s.key === event.key),
  knownSubject: ({ context, event }: GuardArgs) =>
    event.type === 'ssf.subject_removed' && context.subjects.some((s) => s.key === event.key),
  /** A jti is queued once, ever. */
  newSet: ({ context, event }: GuardArgs) => event.type === 'ssf.set_issued' && !context.queued.includes(event.jti),
  /** Only stream control events are made for a disabled stream (SSF 1.0 §8.1.2: nothing held). */
  newControlSet: ({ context, event }: GuardArgs) =>
    event.type === 'ssf.set_issued' && event.control && !context.queued.includes(event.jti),
  toEnabled: ({ event }: GuardArgs) => event.type === 'ssf.status_changed' && event.status === 'enabled',
  toPaused: ({ event }: GuardArgs) => event.type === 'ssf.status_changed' && event.status === 'paused',
  toDisabled: ({ event }: GuardArgs) => event.type === 'ssf.status_changed' && event.status === 'disabled',
  acknowledgesPending: ({ context, event }: GuardArgs) =>
    event.type === 'ssf.sets_acknowledged' && event.jtis.some((j) => context.pending.some((p) => p.jti === j)),
  /** The lease is free, lapsed, or the holder's own (renewed). */
  leaseFree: ({ context, event }: GuardArgs) =>
    event.type === 'ssf.delivery_leased' &&
    (!context.lease || context.lease.holder === event.holder || context.lease.until <= event.at),
  refusesPending: ({ context, event }: GuardArgs) =>
    event.type === 'ssf.sets_refused' && event.errors.some((e) => context.pending.some((p) => p.jti === e.jti)),
};

const without = (context: SsfStreamContext, jtis: readonly string[]) =>
  context.pending.filter((p) => !jtis.includes(p.jti));

/** The machine's context updates: pure, named, importable on their own. */
export const ssfStreamUpdates = {
  recordCreation: (_: SsfStreamContext, e: E<'ssf.stream_created'>) => ({
    clientId: e.client_id,
    delivery: e.delivery,
    eventsRequested: e.events_requested,
    eventsDelivered: e.events_delivered,
    description: e.description,
    createdAt: e.at,
  }),
  recordUpdate: (context: SsfStreamContext, e: E<'ssf.stream_updated'>) => ({
    delivery: e.delivery ?? context.delivery,
    eventsRequested: e.events_requested ?? context.eventsRequested,
    eventsDelivered: e.events_delivered ?? context.eventsDelivered,
    description: e.description === null ? undefined : (e.description ?? context.description),
  }),
  recordReason: (_: SsfStreamContext, e: E<'ssf.status_changed'>) => ({ reason: e.reason }),
  /** A disabled stream holds nothing (SSF 1.0 §8.1.2): what was waiting is dropped, control events aside. */
  dropHeld: (context: SsfStreamContext) => ({ pending: context.pending.filter((p) => p.control) }),
  addSubject: (context: SsfStreamContext, e: E<'ssf.subject_added'>) => ({
    subjects: [...context.subjects, { key: e.key, subject: e.subject, verified: e.verified }],
  }),
  removeSubject: (context: SsfStreamContext, e: E<'ssf.subject_removed'>) => ({
    subjects: context.subjects.filter((s) => s.key !== e.key),
  }),
  queueSet: (context: SsfStreamContext, e: E<'ssf.set_issued'>) => ({
    pending: [...context.pending, { jti: e.jti, set: e.set, control: e.control }],
    queued: [...context.queued, e.jti].slice(-QUEUED_KEPT),
    ...(e.verification ? { lastVerificationAt: e.at } : {}),
  }),
  recordDelivery: (_: SsfStreamContext, e: E<'ssf.sets_delivered'>) => ({ lastDeliveredAt: e.at }),
  recordFailure: (_: SsfStreamContext, e: E<'ssf.delivery_failed'>) => ({
    lastFailure: { jti: e.jti, reason: e.reason, attempt: e.attempt, at: e.at },
    ...(e.retry_at !== undefined
      ? { retry: { since: e.failing_since ?? e.at, attempts: e.attempt, at: e.retry_at } }
      : {}),
  }),
  takeLease: (_: SsfStreamContext, e: E<'ssf.delivery_leased'>) => ({ lease: { holder: e.holder, until: e.until } }),
  /** An answer from the receiver ends the retry under way. */
  acknowledge: (context: SsfStreamContext, e: E<'ssf.sets_acknowledged'>) => ({
    pending: without(context, e.jtis),
    retry: undefined,
  }),
  recordRefusals: (context: SsfStreamContext, e: E<'ssf.sets_refused'>) => ({
    retry: undefined,
    pending: without(
      context,
      e.errors.map((x) => x.jti),
    ),
    errors: [...context.errors, ...e.errors.map((x) => ({ ...x, at: e.at }))].slice(-MAX_ERRORS),
  }),
} satisfies Record<string, ContextUpdate<SsfStreamContext>>;

const configuration = {
  'ssf.stream_updated': {
    description: 'PATCH or PUT /ssf/streams: the receiver-supplied configuration (SSF 1.0 §8.1.1.3, §8.1.1.4).',
    actions: 'recordUpdate',
  },
  'ssf.subject_added': {
    description: 'POST /ssf/subjects:add, once per subject (SSF 1.0 §8.1.3.2).',
    guard: 'newSubject',
    actions: 'addSubject',
  },
  'ssf.subject_removed': {
    description: 'POST /ssf/subjects:remove (SSF 1.0 §8.1.3.3).',
    guard: 'knownSubject',
    actions: 'removeSubject',
  },
  'ssf.sets_delivered': {
    description:
      'SETs handed to the receiver: a poll answer (RFC 8936 §2.4) or a push (RFC 8935 §2); not yet acknowledged.',
    actions: 'recordDelivery',
  },
  'ssf.delivery_failed': {
    description: 'A push that got no usable answer (RFC 8935 §2.3): retried with backoff for a day.',
    actions: 'recordFailure',
  },
  'ssf.delivery_leased': {
    description:
      'An instance takes (or renews) the push delivery of the stream until a time: one instance pushes a SET, never two.',
    guard: 'leaseFree',
    actions: 'takeLease',
  },
  'ssf.sets_acknowledged': {
    description: 'A poll acknowledging queued SETs: never delivered again (RFC 8936 §2.4).',
    guard: 'acknowledgesPending',
    actions: 'acknowledge',
  },
  'ssf.sets_refused': {
    description:
      'setErrs of a poll, or an RFC 8935 error answer: recorded on the stream, not delivered again (RFC 8936 §2.4).',
    guard: 'refusesPending',
    actions: 'recordRefusals',
  },
  'ssf.stream_deleted': {
    description: 'DELETE /ssf/streams: nothing more is made or delivered (SSF 1.0 §8.1.1.5).',
    target: '#ssfStream.deleted',
  },
} as const;

const statusChanges = {
  'ssf.status_changed': [
    {
      description:
        'POST /ssf/status with enabled: held SETs go out (SSF 1.0 §8.1.2.2); a stream-updated SET goes with it.',
      guard: 'toEnabled',
      target: '#ssfStream.enabled',
      actions: 'recordReason',
    },
    {
      description: 'POST /ssf/status with paused: SETs are held (SSF 1.0 §8.1.2.2); a stream-updated SET goes with it.',
      guard: 'toPaused',
      target: '#ssfStream.paused',
      actions: 'recordReason',
    },
    {
      description:
        'POST /ssf/status with disabled: what was held is dropped (SSF 1.0 §8.1.2.2); a stream-updated SET goes with it.',
      guard: 'toDisabled',
      target: '#ssfStream.disabled',
      actions: ['recordReason', 'dropHeld'],
    },
  ],
} as const;

/**
 * One Shared Signals event stream of the transmitter (SSF 1.0 §8), stream `ssf-stream:<stream_id>`:
 * its configuration and subjects, its status, and every SET made for it until acknowledged. Time and
 * the signed SETs arrive inside the events.
 */
export const ssfStreamMachine = setup({
  types: { context: {} as SsfStreamContext, events: {} as SsfStreamEvent },
  guards: ssfStreamGuards,
  actions: updateActions<SsfStreamContext, SsfStreamEvent, typeof ssfStreamUpdates>(ssfStreamUpdates),
}).createMachine({
  id: 'ssfStream',
  description:
    'One SSF event stream (OpenID SSF 1.0 §8), stream ssf-stream:<stream_id>: configured, enabled, paused or disabled, then deleted.',
  initial: 'new',
  context: {
    clientId: '',
    eventsRequested: [],
    eventsDelivered: [],
    subjects: [],
    pending: [],
    queued: [],
    errors: [],
    createdAt: 0,
  },
  states: {
    new: {
      description: 'No stream yet.',
      on: {
        'ssf.stream_created': {
          description: 'POST /ssf/streams: a new stream, enabled (SSF 1.0 §8.1.1.1).',
          target: 'enabled',
          actions: 'recordCreation',
        },
      },
    },
    enabled: {
      description: 'SETs are delivered as they are made (SSF 1.0 §8.1.2).',
      on: {
        ...configuration,
        ...statusChanges,
        'ssf.set_issued': {
          description: 'A SET about a subject of the stream, of an event type it delivers (SSF 1.0 §8.1.3.1).',
          guard: 'newSet',
          actions: 'queueSet',
        },
      },
    },
    paused: {
      description: 'SETs are held and delivered on resume (SSF 1.0 §8.1.2).',
      on: {
        ...configuration,
        ...statusChanges,
        'ssf.set_issued': {
          description: 'Held while paused, delivered once enabled (SSF 1.0 §8.1.2).',
          guard: 'newSet',
          actions: 'queueSet',
        },
      },
    },
    disabled: {
      description: 'Nothing is transmitted or held; only stream control events are made (SSF 1.0 §8.1.2).',
      on: {
        ...configuration,
        ...statusChanges,
        'ssf.set_issued': {
          description: 'Only verification and stream-updated SETs (SSF 1.0 §8.1.4, §8.1.5).',
          guard: 'newControlSet',
          actions: 'queueSet',
        },
      },
    },
    deleted: {
      type: 'final',
      description: 'Deleted: 404 to its owner, nothing more made or delivered (SSF 1.0 §8.1.1.5).',
    },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const ssfStreamStates = {
  /** Deleted by its receiver. */
  deleted: inState('deleted'),
  /** Receives nothing: disabled or deleted (SSF §8.1.1). */
  silent: inState('disabled', 'deleted'),
  /** Enabled: every queued event is delivered (SSF §8.1.1). */
  delivering: inState('enabled'),
};

/** Whether the stream already has the status a receiver asks for (SSF §8.1.2.2: then nothing changes). */
export const hasStatus = (snapshot: { value: unknown }, status: string): boolean => snapshot.value === status;
