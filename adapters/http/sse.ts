import type { FastifyReply, FastifyRequest } from 'fastify';
import { oauthError } from '../../services/errors.ts';

/** Bounds of the Server-Sent Event streams one service holds open. */
export interface SseLimits {
  /** Open streams one client address may hold; one more is refused with 429. */
  perClient: number;
  /** Open streams in total. */
  total: number;
  /** A comment line this often keeps proxies from closing a quiet stream. */
  heartbeatMs: number;
  /** A stream that delivered no event for this long is ended; the client resumes with Last-Event-ID. */
  idleMs: number;
  /** Bytes a client may leave unread before its stream is ended (a reader that never reads). */
  maxBufferedBytes: number;
}

export const DEFAULT_SSE_LIMITS: SseLimits = {
  perClient: 8,
  total: 512,
  heartbeatMs: 15_000,
  idleMs: 10 * 60_000,
  maxBufferedBytes: 1024 * 1024,
};

export interface SseStream {
  /** Writes one event; ignored once the stream has ended. */
  send(event: { id?: string | number; event?: string; data: string }): void;
  /** Ends the stream from the server side. */
  end(): void;
  readonly ended: boolean;
}

/** The resume point a client asks for: `Last-Event-ID` (as browsers send it on reconnect) before `?after=`. */
export function resumeCursor(request: FastifyRequest): number {
  const header = request.headers['last-event-id'];
  if (typeof header === 'string' && /^\d{1,15}$/.test(header)) return Number(header);
  const after = (request.query as { after?: unknown } | undefined)?.after;
  return typeof after === 'string' && /^\d{1,15}$/.test(after) ? Number(after) : 0;
}

/** Query schema of a resumable stream: `after` is a decimal sequence number. */
export const resumableQuery = {
  type: 'object',
  properties: { after: { type: 'string', pattern: '^[0-9]{1,15}$' } },
} as const;

/**
 * Every SSE stream of a service goes through one hub: streams are counted per client address and in
 * total (over either bound: 429 JSON before anything is streamed), get heartbeats, end when idle or
 * when the client stops reading, and release everything they hold (timers, listeners, counters) the
 * moment they close. Shutdown ends every open stream through `closeAll`, with no per-stream hook.
 */
export class SseHub {
  private readonly open = new Set<{ end(): void }>();
  private readonly perClient = new Map<string, number>();

  constructor(private readonly limits: SseLimits = DEFAULT_SSE_LIMITS) {}

  get size(): number {
    return this.open.size;
  }

  /**
   * Takes over the response and starts a stream; `onEnd` runs once when it ends for any reason.
   * Throws 429 `rate_limited` (before hijacking, so the error handler answers) when a bound is reached.
   */
  start(request: FastifyRequest, reply: FastifyReply, onEnd: () => void = () => {}): SseStream {
    const client = request.ip;
    const held = this.perClient.get(client) ?? 0;
    if (held >= this.limits.perClient)
      throw oauthError('rate_limited', `At most ${this.limits.perClient} open event streams per client address`);
    if (this.open.size >= this.limits.total)
      throw oauthError('rate_limited', 'The server holds as many event streams as it allows; try again later');

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');

    let ended = false;
    let idle: NodeJS.Timeout;
    const heartbeat = setInterval(() => write(': keep-alive\n\n'), this.limits.heartbeatMs);
    const resetIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => stream.end(), this.limits.idleMs);
    };
    const write = (text: string) => {
      if (ended) return;
      if (res.writableLength > this.limits.maxBufferedBytes) return stream.end();
      res.write(text);
    };
    const release = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      clearTimeout(idle);
      this.open.delete(handle);
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left > 0) this.perClient.set(client, left);
      else this.perClient.delete(client);
      res.off('close', release);
      onEnd();
      // The client went away mid-stream: drop the connection rather than leave it half-open.
      if (!res.writableEnded) res.destroy();
    };
    const handle = { end: () => stream.end() };
    const stream: SseStream = {
      send(event) {
        const lines = [
          event.id !== undefined ? `id: ${event.id}` : '',
          event.event ? `event: ${event.event}` : '',
          ...event.data.split('\n').map((l) => `data: ${l}`),
        ].filter(Boolean);
        write(`${lines.join('\n')}\n\n`);
        resetIdle();
      },
      end() {
        if (ended) return;
        if (!res.writableEnded) res.end();
        release();
      },
      get ended() {
        return ended;
      },
    };
    this.open.add(handle);
    this.perClient.set(client, held + 1);
    res.once('close', release);
    resetIdle();
    return stream;
  }

  /** Ends every open stream (shutdown). */
  closeAll(): void {
    for (const handle of [...this.open]) handle.end();
  }
}
