import type { Clock } from '../clock.ts';
import { ssfStreamStates } from '../../machines/ssf-stream.ts';
import type { SsfStreams } from './streams.ts';
import { subjectsMatch } from './subjects.ts';

/** An event to transmit: its type, its subject and body, and the transaction it belongs to. */
export interface SsfEvent {
  eventType: string;
  subject: Record<string, unknown>;
  body: Record<string, unknown>;
  txn?: string;
  /** Only this client's streams (`POST /ssf/events`); every stream otherwise. */
  clientId?: string;
  /**
   * Other names of the same subject (a SCIM user: its email and its `scim` resource): a stream that
   * added any of them receives the event once, about the name it added.
   */
  aliases?: Record<string, unknown>[];
  /** An event about no subject a receiver adds (a credential's status entry): every stream delivering its type. */
  anySubject?: boolean;
  /** A fact's own name (its log position): each stream's SET of it gets one `jti`, however often it is emitted. */
  jtiSeed?: string;
  /** When the fact happened: a stream created after it does not hear of it. */
  happenedAt?: number;
}

/**
 * Makes a SET of an event for every stream that delivers its type and has a matching subject
 * (SSF 1.0 §8.1.3.1), enabled or paused (a paused stream holds it); a disabled stream gets nothing.
 * Each stream gets its own SET (its own `aud` and `jti`).
 */
export class SsfEmitter {
  constructor(
    private readonly streams: SsfStreams,
    private readonly clock: Clock,
  ) {}

  async emit(event: SsfEvent): Promise<Array<{ stream_id: string; jti: string }>> {
    const queued = [];
    // The subscriptions read model answers who receives this type; each candidate's subjects are then matched.
    const candidates = await this.streams.receiving(event.eventType, event.clientId);
    for (const { id, stream } of candidates) {
      const c = stream.snapshot.context;
      if (ssfStreamStates.silent(stream.snapshot)) continue;
      if (!c.eventsDelivered.includes(event.eventType)) continue;
      if (event.happenedAt !== undefined && event.happenedAt < c.createdAt) continue;
      const subject = event.anySubject
        ? event.subject
        : [event.subject, ...(event.aliases ?? [])].find((name) =>
            c.subjects.some((s) => subjectsMatch(s.subject, name)),
          );
      if (!subject) continue;
      const issued = await this.streams.setFor(
        c.clientId,
        {
          type: event.eventType,
          body: event.body,
          subject,
          control: false,
          ...(event.txn !== undefined ? { txn: event.txn } : {}),
          ...(event.jtiSeed ? { jti: `${event.jtiSeed}.${id}` } : {}),
        },
        this.clock.now(),
      );
      const outcome = await this.streams.actors.execute(id, issued);
      const jti = issued.jti;
      if (outcome.accepted) queued.push({ stream_id: id, jti });
    }
    return queued;
  }
}
