import {
  svidFactsOf,
  svidRotationMachine,
  type SvidFacts,
  type SvidRotationEvent,
  svidRotationStates,
} from '../../machines/svid-rotation.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';
import { certificateInfo } from './certificate.ts';
import type { X509Svid, X509SvidUpdate } from './ports.ts';

export interface RotationRecord {
  sequence: number;
  at: string;
  type: 'svid.observed' | 'svid.rotated';
  spiffe_id: string;
  serial: string;
  previous_serial?: string;
  not_before: string;
  not_after: string;
  fingerprint_sha256: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Rotations observed on the Workload API's X.509 stream, one actor per SPIFFE ID
 * (`x509-svid:<spiffe id>`, machine machines/svid-rotation.ts). Each message of the stream is offered
 * to the actor; a new serial is a rotation and is appended to the service's event log.
 */
export class SvidRotations {
  private readonly actors: ActorRuntime<typeof svidRotationMachine>;

  constructor(
    private readonly log: EventLog,
    private readonly clock: Clock,
  ) {
    this.actors = ActorRuntime.of(log, svidRotationMachine, 'x509-svid', 100);
  }

  private facts(svid: X509Svid): SvidFacts {
    const info = certificateInfo(svid.chain[0]);
    return {
      spiffeId: svid.spiffeId,
      serial: info.serial,
      notBefore: info.notBefore.getTime(),
      notAfter: info.notAfter.getTime(),
      fingerprint: info.fingerprint,
    };
  }

  /** Offers every SVID of a stream message to its actor; resolves once any rotation is on disk. */
  async observe(update: X509SvidUpdate): Promise<number> {
    let rotations = 0;
    for (const svid of update.svids) {
      const facts = this.facts(svid);
      const outcome = await this.actors.execute(svid.spiffeId, ({ snapshot }): SvidRotationEvent | undefined => {
        const at = this.clock.now();
        if (svidRotationStates.unseen(snapshot)) return { type: 'svid.observed', at, ...facts };
        if (snapshot.context.serial === facts.serial) return undefined;
        return { type: 'svid.rotated', at, previousSerial: snapshot.context.serial!, ...facts };
      });
      if (outcome.accepted && outcome.events[0]?.type === 'svid.rotated') rotations++;
    }
    return rotations;
  }

  /** The current state of one SPIFFE ID's actor. */
  async state(spiffeId: string) {
    return (await this.actors.get(spiffeId)).snapshot.context;
  }

  /** Every observation and rotation from the log, oldest first. */
  async history(spiffeId?: string): Promise<RotationRecord[]> {
    const streams = spiffeId ? [this.actors.streamId(spiffeId)] : await this.log.streamIds('x509-svid:');
    const records: RotationRecord[] = [];
    for (const stream of streams) {
      for (const e of await this.log.readStream(stream)) {
        const d = svidFactsOf(e);
        records.push({
          sequence: e.sequence,
          at: iso(e.at),
          type: e.type as RotationRecord['type'],
          spiffe_id: d.spiffeId,
          serial: d.serial,
          ...(d.previousSerial ? { previous_serial: d.previousSerial } : {}),
          not_before: iso(d.notBefore),
          not_after: iso(d.notAfter),
          fingerprint_sha256: d.fingerprint,
        });
      }
    }
    return records.sort((a, b) => a.sequence - b.sequence);
  }
}
