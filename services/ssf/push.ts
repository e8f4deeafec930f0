import type { Clock } from '../clock.ts';
import { ssfStreamStates } from '../../machines/ssf-stream.ts';
import { randomToken } from '../crypto/random.ts';
import type { EventLog } from '../event-log.ts';
import type { OutboundHttp } from '../outbound.ts';
import { PUSH } from './configuration.ts';
import type { Sealer } from './sealed.ts';
import type { SsfStreams } from './streams.ts';

/** RFC 8935: retries back off from a second to ten minutes, with jitter, for a day; then the stream is disabled. */
const FIRST_RETRY_MS = 1_000;
const LONGEST_RETRY_MS = 10 * 60_000;
const GIVE_UP_AFTER_MS = 24 * 3600_000;
/** How long one instance holds a stream's push delivery; renewed while it pushes. */
const LEASE_MS = 30_000;

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
 * the stream is disabled, saying why. The retry's schedule (attempt, next time, failing since) is in
 * the stream's log, so a restart resumes it; an instance pushes a stream's SETs only while it holds the
 * stream's delivery lease (an event of the stream), so two instances never push one SET twice.
 */
export class PushDelivery {
  private readonly running = new Set<string>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private unsubscribe?: () => void;
  /** This instance, as its leases name it. */
  private readonly holder = randomToken(12);
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
      if (ssfStreamStates.silent(snapshot) || c.delivery?.method !== PUSH) return;
      const next = c.pending.find((p) => ssfStreamStates.delivering(snapshot) || p.control);
      if (!next) return;
      const now = this.clock.now();
      // A retry the log scheduled waits for its time, whichever instance (or start) scheduled it.
      if (c.retry && c.retry.at > now) return this.wakeAt(streamId, c.retry.at);
      if (!(await this.holdLease(streamId, c.lease, now))) return this.wakeAt(streamId, c.lease!.until);
      const delivered = await this.send(
        streamId,
        c.delivery.endpoint_url,
        c.delivery.authorization_header_sealed,
        next,
      );
      if (!delivered) return;
    }
  }

  /**
   * Whether this instance holds the stream's delivery lease, taking or renewing it when it is free,
   * lapsed or half spent. Taking it is an event appended at the stream's version: of two instances
   * racing for it, one wins.
   */
  private async holdLease(
    streamId: string,
    lease: { holder: string; until: number } | undefined,
    now: number,
  ): Promise<boolean> {
    if (lease?.holder === this.holder && lease.until - now > LEASE_MS / 2) return true;
    if (lease && lease.holder !== this.holder && lease.until > now) return false;
    const taken = await this.streams.actors.execute(streamId, {
      type: 'ssf.delivery_leased',
      at: now,
      holder: this.holder,
      until: now + LEASE_MS,
    });
    return taken.accepted;
  }

  /** Drains the stream again at `at` (a retry's time, or when another instance's lease lapses). */
  private wakeAt(streamId: string, at: number): void {
    if (this.stopped || this.timers.has(streamId)) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(streamId);
        this.kick(streamId);
      },
      Math.max(0, at - this.clock.now()),
    );
    timer.unref?.();
    this.timers.set(streamId, timer);
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
      await this.streams.actors.execute(streamId, () => [
        { type: 'ssf.sets_delivered', at, jtis: [pending.jti], method: 'push' },
        { type: 'ssf.sets_acknowledged', at, jtis: [pending.jti] },
      ]);
      return true;
    }
    const refused = status === 400 ? receiverError(body) : undefined;
    if (refused) {
      await this.streams.actors.execute(streamId, () => [
        { type: 'ssf.sets_delivered', at, jtis: [pending.jti], method: 'push' },
        { type: 'ssf.sets_refused', at, errors: [{ jti: pending.jti, ...refused }] },
      ]);
      return true;
    }
    return this.retryLater(streamId, pending.jti, failure || `the receiver answered HTTP ${status}`);
  }

  /** Records the failure with the next retry's time (from the log's count of attempts), or gives up after a day. */
  private async retryLater(streamId: string, jti: string, reason: string): Promise<false> {
    const now = this.clock.now();
    const { snapshot } = await this.streams.actors.get(streamId);
    const attempts = (snapshot.context.retry?.attempts ?? 0) + 1;
    const since = snapshot.context.retry?.since ?? now;
    const givingUp = now - since >= GIVE_UP_AFTER_MS;
    const retryAt = now + retryDelay(attempts);
    await this.streams.actors.execute(streamId, {
      type: 'ssf.delivery_failed',
      at: now,
      jti,
      reason: reason.slice(0, 256),
      attempt: attempts,
      ...(givingUp ? {} : { retry_at: retryAt, failing_since: since }),
    });
    if (givingUp) {
      await this.streams.changeStatus(streamId, snapshot.context.clientId, {
        status: 'disabled',
        reason: `push delivery failed for 24 hours: ${reason}`.slice(0, 256),
      });
      return false;
    }
    this.wakeAt(streamId, retryAt);
    return false;
  }
}
