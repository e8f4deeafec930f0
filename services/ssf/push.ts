import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';
import type { OutboundHttp } from '../outbound.ts';
import { PUSH } from './configuration.ts';
import type { Sealer } from './sealed.ts';
import type { SsfStreams } from './streams.ts';

/** RFC 8935: retries back off from a second to ten minutes, with jitter, for a day; then the stream is disabled. */
const FIRST_RETRY_MS = 1_000;
const LONGEST_RETRY_MS = 10 * 60_000;
const GIVE_UP_AFTER_MS = 24 * 3600_000;

/** The delay before retry `attempt` (1, 2, …): exponential, capped, with up to half of it as jitter. */
export function retryDelay(attempt: number, random = Math.random): number {
  const ceiling = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** An RFC 8935 §2.3 error answer: `{err, description}`, the err a short code. */
function receiverError(body: Buffer): { err: string; description?: string } | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { err?: unknown; description?: unknown };
    if (typeof parsed.err !== 'string' || !/^[a-z_]{1,64}$/.test(parsed.err)) return undefined;
    return {
      err: parsed.err,
      ...(typeof parsed.description === 'string' ? { description: parsed.description.slice(0, 256) } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Push delivery (RFC 8935): each push stream's queued SETs are POSTed as `application/secevent+jwt`,
 * oldest first and one at a time (order is kept per stream), with the stream's authorization header,
 * through the outbound guard. 202 acknowledges a SET; a 400 with an RFC 8935 error is recorded on the
 * stream and the SET is not sent again; anything else is retried with backoff for a day, after which
 * the stream is disabled, saying why.
 */
export class PushDelivery {
  private readonly running = new Set<string>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly failing = new Map<string, { since: number; attempts: number }>();
  private unsubscribe?: () => void;
  private stopped = false;

  constructor(
    private readonly streams: SsfStreams,
    private readonly log: EventLog,
    private readonly outbound: OutboundHttp,
    private readonly sealer: Sealer,
    private readonly clock: Clock,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = this.log.onCommit((events) => {
      for (const e of events)
        if (e.streamId.startsWith('ssf-stream:') && (e.type === 'ssf.set_issued' || e.type === 'ssf.status_changed'))
          setImmediate(() => this.kick(e.streamId.slice('ssf-stream:'.length)));
    });
    for (const { id } of await this.streams.all()) this.kick(id);
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** Starts delivering a stream's queue, unless that is already under way or waiting for a retry. */
  kick(streamId: string): void {
    if (this.stopped || this.running.has(streamId) || this.timers.has(streamId)) return;
    this.running.add(streamId);
    void this.drain(streamId)
      .catch(() => undefined)
      .finally(() => this.running.delete(streamId));
  }

  private async drain(streamId: string): Promise<void> {
    for (;;) {
      const { snapshot } = await this.streams.actors.get(streamId);
      const c = snapshot.context;
      // A disabled stream is left alone: nothing is held for it, and one disabled for failing is not retried.
      if (snapshot.value === 'deleted' || snapshot.value === 'disabled' || c.delivery?.method !== PUSH) return;
      const next = c.pending.find((p) => snapshot.value === 'enabled' || p.control);
      if (!next) return;
      const delivered = await this.send(
        streamId,
        c.delivery.endpoint_url,
        c.delivery.authorization_header_sealed,
        next,
      );
      if (!delivered) return;
    }
  }

  /** One SET to the receiver; false when it must wait for a retry. */
  private async send(
    streamId: string,
    url: string,
    sealedHeader: string | undefined,
    pending: { jti: string; set: string },
  ): Promise<boolean> {
    const at = this.clock.now();
    let status = 0;
    let body: Buffer = Buffer.alloc(0);
    let failure = '';
    try {
      const response = await this.outbound.send(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/secevent+jwt',
          accept: 'application/json',
          ...(sealedHeader ? { authorization: this.sealer.open(sealedHeader) } : {}),
        },
        body: pending.set,
        followRedirects: false,
      });
      status = response.status;
      body = response.body;
    } catch (error) {
      failure = (error as { description?: string }).description ?? (error as Error).message;
    }
    if (status === 202 || status === 200) {
      this.failing.delete(streamId);
      await this.streams.actors.execute(streamId, () => [
        { type: 'ssf.sets_delivered', at, jtis: [pending.jti], method: 'push' },
        { type: 'ssf.sets_acknowledged', at, jtis: [pending.jti] },
      ]);
      return true;
    }
    const refused = status === 400 ? receiverError(body) : undefined;
    if (refused) {
      this.failing.delete(streamId);
      await this.streams.actors.execute(streamId, () => [
        { type: 'ssf.sets_delivered', at, jtis: [pending.jti], method: 'push' },
        { type: 'ssf.sets_refused', at, errors: [{ jti: pending.jti, ...refused }] },
      ]);
      return true;
    }
    return this.retryLater(streamId, pending.jti, failure || `the receiver answered HTTP ${status}`);
  }

  private async retryLater(streamId: string, jti: string, reason: string): Promise<false> {
    const now = this.clock.now();
    const state = this.failing.get(streamId) ?? { since: now, attempts: 0 };
    state.attempts += 1;
    this.failing.set(streamId, state);
    await this.streams.actors.execute(streamId, {
      type: 'ssf.delivery_failed',
      at: now,
      jti,
      reason: reason.slice(0, 256),
      attempt: state.attempts,
    });
    if (now - state.since >= GIVE_UP_AFTER_MS) {
      this.failing.delete(streamId);
      const { snapshot } = await this.streams.actors.get(streamId);
      await this.streams.changeStatus(streamId, snapshot.context.clientId, {
        status: 'disabled',
        reason: `push delivery failed for 24 hours: ${reason}`.slice(0, 256),
      });
      return false;
    }
    const timer = setTimeout(() => {
      this.timers.delete(streamId);
      this.kick(streamId);
    }, retryDelay(state.attempts));
    timer.unref?.();
    this.timers.set(streamId, timer);
    return false;
  }
}
