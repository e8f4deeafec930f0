import { setReceiverMachine } from '../../machines/set-receiver.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';
import type { SecurityEvents } from './security-events.ts';

export interface PollRequest {
  maxEvents?: number;
  returnImmediately?: boolean;
  ack?: string[];
  setErrs?: Record<string, { err: string; description: string }>;
}

export interface PollResponse {
  sets: Record<string, string>;
  moreAvailable: boolean;
}

const DEFAULT_MAX_EVENTS = 100;

/** RFC 8936 poll delivery: acknowledgements (and error reports) are recorded per receiver. */
export class PollDelivery {
  private readonly receivers: ActorRuntime<typeof setReceiverMachine>;

  constructor(
    log: EventLog,
    private readonly events: SecurityEvents,
    private readonly clock: Clock,
  ) {
    this.receivers = ActorRuntime.of(log, setReceiverMachine, 'set-receiver');
  }

  /** Records acks and error reports, then returns what is still undelivered to `receiver`. */
  async poll(receiver: string, request: PollRequest): Promise<PollResponse> {
    const named = [...(request.ack ?? []), ...Object.keys(request.setErrs ?? {})];
    const known = await Promise.all(named.map((jti) => this.events.feed.byJti(jti)));
    const handled = named.filter((_jti, i) => known[i] !== undefined);
    if (handled.length > 0)
      await this.receivers.execute(receiver, { type: 'sets.acknowledged', at: this.clock.now(), jtis: handled });
    return this.pending(receiver, request.maxEvents ?? DEFAULT_MAX_EVENTS);
  }

  async pending(receiver: string, maxEvents: number): Promise<PollResponse> {
    const acknowledged = new Set((await this.receivers.get(receiver)).snapshot.context.acknowledged);
    const sets: Record<string, string> = {};
    let count = 0;
    let after = 0;
    for (;;) {
      const page = await this.events.feed.after(after, 500);
      if (page.length === 0) return { sets, moreAvailable: false };
      for (const entry of page) {
        after = entry.sequence;
        if (acknowledged.has(entry.jti)) continue;
        if (count === maxEvents) return { sets, moreAvailable: true };
        sets[entry.jti] = await this.events.token(entry);
        count++;
      }
    }
  }
}
