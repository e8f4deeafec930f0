import { ssfStreamStates, type PendingSet } from '../../machines/ssf-stream.ts';
import { oauthError } from '../errors.ts';
import type { EventLog } from '../event-log.ts';
import type { Clock } from '../clock.ts';
import { POLL } from './configuration.ts';
import { objectBody } from './requests.ts';
import type { SsfStreams } from './streams.ts';

/** At most this many SETs per answer, whatever `maxEvents` asks. */
const MAX_EVENTS = 100;

interface PollRequest {
  maxEvents?: number;
  returnImmediately: boolean;
  ack: string[];
  setErrs: Array<{ jti: string; err: string; description?: string }>;
}

const bad = (description: string) => oauthError('invalid_request', description);

/** RFC 8936 §2.4: the members of a poll request, each checked. */
function pollRequest(raw: unknown): PollRequest {
  const body = objectBody(raw ?? {});
  const { maxEvents, returnImmediately, ack, setErrs } = body;
  if (maxEvents !== undefined && (!Number.isInteger(maxEvents) || (maxEvents as number) < 0))
    throw bad('maxEvents must be a non-negative integer');
  if (returnImmediately !== undefined && typeof returnImmediately !== 'boolean')
    throw bad('returnImmediately must be a boolean');
  if (ack !== undefined && (!Array.isArray(ack) || ack.length > 1000 || !ack.every((j) => typeof j === 'string')))
    throw bad('ack must be an array of jti values');
  const errors: PollRequest['setErrs'] = [];
  if (setErrs !== undefined) {
    const map = objectBody(setErrs);
    for (const [jti, value] of Object.entries(map)) {
      const e = objectBody(value);
      if (typeof e.err !== 'string' || !/^[a-z_]{1,64}$/.test(e.err)) throw bad('setErrs: each err is an error code');
      if (e.description !== undefined && typeof e.description !== 'string')
        throw bad('setErrs: description is a string');
      errors.push({
        jti,
        err: e.err,
        ...(typeof e.description === 'string' ? { description: e.description.slice(0, 256) } : {}),
      });
    }
  }
  return {
    ...(maxEvents !== undefined ? { maxEvents: maxEvents as number } : {}),
    returnImmediately: returnImmediately === true,
    ack: (ack as string[] | undefined) ?? [],
    setErrs: errors,
  };
}

/** What a stream may hand out now: everything when enabled, only control events otherwise (SSF 1.0 §8.1.2). */
/** Concurrent long polls (issue 45 item 36): a stream needs one reader; a client a few streams' worth. */
const LONG_POLLS_PER_STREAM = 2;
const LONG_POLLS_PER_CLIENT = 10;

const decrement = (counts: Map<string, number>, key: string) => {
  const n = (counts.get(key) ?? 1) - 1;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
};

const deliverable = (stream: { value: unknown }, pending: readonly PendingSet[]) =>
  ssfStreamStates.delivering(stream) ? pending : pending.filter((p) => p.control);

/**
 * `POST /ssf/poll/{stream_id}` (RFC 8936): acknowledgements and errors are recorded first (never
 * delivered again), then the queued SETs, oldest first. Without `returnImmediately` an empty queue is
 * waited on for up to the long-poll time. Anything not acknowledged is delivered again next time, so a
 * crash between delivery and acknowledgement loses nothing.
 */
export class SsfPoll {
  /** Long polls waiting now, per stream and per client: each holds a socket and a listener. */
  private readonly waitingByStream = new Map<string, number>();
  private readonly waitingByClient = new Map<string, number>();

  constructor(
    private readonly streams: SsfStreams,
    private readonly log: EventLog,
    private readonly clock: Clock,
    private readonly longPollMs: number,
  ) {}

  async poll(clientId: string, streamId: string, raw: unknown) {
    const request = pollRequest(raw);
    const stream = await this.streams.owned(clientId, streamId);
    if (stream.snapshot.context.delivery?.method !== POLL)
      throw bad('This stream delivers by push (urn:ietf:rfc:8935); it is not polled');
    if (request.ack.length > 0)
      await this.streams.actors.execute(streamId, {
        type: 'ssf.sets_acknowledged',
        at: this.clock.now(),
        jtis: request.ack,
      });
    if (request.setErrs.length > 0)
      await this.streams.actors.execute(streamId, {
        type: 'ssf.sets_refused',
        at: this.clock.now(),
        errors: request.setErrs,
      });
    const max = Math.min(request.maxEvents ?? MAX_EVENTS, MAX_EVENTS);
    if (max === 0) return { sets: {}, moreAvailable: (await this.ready(streamId)).length > 0 };
    let ready = await this.ready(streamId);
    if (ready.length === 0 && !request.returnImmediately) {
      const release = this.admitLongPoll(clientId, streamId);
      try {
        // Listening before looking again: a SET queued between the first look and the wait is not missed.
        const commit = this.nextCommit(streamId);
        ready = await this.ready(streamId);
        if (ready.length === 0) {
          await commit.arrived;
          ready = await this.ready(streamId);
        }
        commit.cancel();
      } finally {
        release();
      }
    }
    const sets: Record<string, string> = Object.create(null);
    const handed = ready.slice(0, max);
    for (const p of handed) sets[p.jti] = p.set;
    // Every delivery is an event of the stream (its history), acknowledged or not.
    if (handed.length > 0)
      await this.streams.actors.execute(streamId, {
        type: 'ssf.sets_delivered',
        at: this.clock.now(),
        jtis: handed.map((p) => p.jti),
        method: 'poll',
      });
    return { sets, moreAvailable: ready.length > max };
  }

  /**
   * A long poll may wait if its stream has fewer than LONG_POLLS_PER_STREAM and its client fewer than
   * LONG_POLLS_PER_CLIENT waiting already (counted in one synchronous turn, so concurrent polls cannot
   * both pass); otherwise 429 rate_limited. Returns the release of its place.
   */
  private admitLongPoll(clientId: string, streamId: string): () => void {
    const byStream = this.waitingByStream.get(streamId) ?? 0;
    const byClient = this.waitingByClient.get(clientId) ?? 0;
    if (byStream >= LONG_POLLS_PER_STREAM || byClient >= LONG_POLLS_PER_CLIENT)
      throw oauthError(
        'rate_limited',
        `At most ${LONG_POLLS_PER_STREAM} long polls may wait on a stream and ${LONG_POLLS_PER_CLIENT} per client; poll again once one has answered, or send returnImmediately`,
      );
    this.waitingByStream.set(streamId, byStream + 1);
    this.waitingByClient.set(clientId, byClient + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      decrement(this.waitingByStream, streamId);
      decrement(this.waitingByClient, clientId);
    };
  }

  private async ready(streamId: string) {
    const { snapshot } = await this.streams.actors.get(streamId);
    return deliverable(snapshot, snapshot.context.pending);
  }

  /** The next commit to this stream (or the end of the long-poll time), listened for from now on. */
  private nextCommit(streamId: string): { arrived: Promise<void>; cancel(): void } {
    const stream = `ssf-stream:${streamId}`;
    let done = () => undefined as void;
    const arrived = new Promise<void>((resolve) => {
      done = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      };
    });
    const timer = setTimeout(done, this.longPollMs);
    // The listener runs inside the append; the actor's state moves once the append returns.
    const unsubscribe = this.log.onCommit((events) => {
      if (events.some((e) => e.streamId === stream)) setImmediate(done);
    });
    return { arrived, cancel: done };
  }
}
