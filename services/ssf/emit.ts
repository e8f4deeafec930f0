import type { Clock } from '../clock.ts';
import { randomToken } from '../crypto/random.ts';
import type { KeyRing } from '../keys.ts';
import type { SsfSettings } from './configuration.ts';
import { signSet } from './set.ts';
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
    private readonly keys: KeyRing,
    private readonly settings: SsfSettings,
    private readonly clock: Clock,
  ) {}

  async emit(event: SsfEvent): Promise<Array<{ stream_id: string; jti: string }>> {
    const queued = [];
    const candidates = event.clientId ? await this.streams.ofClient(event.clientId) : await this.streams.all();
    for (const { id, stream } of candidates) {
      const c = stream.snapshot.context;
      if (stream.snapshot.value === 'disabled' || stream.snapshot.value === 'deleted') continue;
      if (!c.eventsDelivered.includes(event.eventType)) continue;
      if (event.happenedAt !== undefined && event.happenedAt < c.createdAt) continue;
      if (!event.anySubject && !c.subjects.some((s) => subjectsMatch(s.subject, event.subject))) continue;
      const at = this.clock.now();
      const jti = event.jtiSeed ? `${event.jtiSeed}.${id}` : randomToken(16);
      const set = await signSet(
        {
          iss: this.settings.issuer,
          aud: c.clientId,
          jti,
          iat: Math.floor(at / 1000),
          sub_id: event.subject,
          events: { [event.eventType]: event.body },
          ...(event.txn !== undefined ? { txn: event.txn } : {}),
        },
        this.keys.signing('oidc', 'ES256'),
      );
      const outcome = await this.streams.actors.execute(id, {
        type: 'ssf.set_issued',
        at,
        jti,
        set,
        event_types: [event.eventType],
        control: false,
      });
      if (outcome.accepted) queued.push({ stream_id: id, jti });
    }
    return queued;
  }
}
