import { initialTransition } from 'xstate';
import { machineForStream } from '../../machines/index.ts';
import { step, toMachineEvent } from '../actors/fold.ts';
import { sha256 } from '../crypto/random.ts';
import type { StoredEvent } from '../event-log.ts';
import { canonicalJson } from './canonical-json.ts';
import { machineVersion } from './machine-version.ts';

/** The versioned format of one exported stream (docs/debugging.md). */
export const STREAM_EXPORT_FORMAT = 'portico-stream/1';

export interface ExportedEvent {
  sequence: number;
  version: number;
  /** The event's own time, RFC 3339 with milliseconds. */
  at: string;
  type: string;
  data: Record<string, unknown>;
  /** The machine's state value after this event, folded by the machine of the exporting commit. */
  state: unknown;
}

export interface StreamExport {
  format: typeof STREAM_EXPORT_FORMAT;
  stream: string;
  kind: string;
  machine: { id: string; version: string };
  commit: string;
  exported_at: string;
  events: ExportedEvent[];
  final_state: unknown;
  /** SHA-256 (base64url) of the RFC 8785 canonical JSON of `{stream, machine, events}`. */
  digest: string;
}

/** The kind of a stream id (`issuance:<id>` is `issuance`). */
const streamKind = (streamId: string) => streamId.slice(0, Math.max(0, streamId.indexOf(':')));

/** The digest an export carries: tampering with the stream, the machine or any event changes it. */
export const exportDigest = (doc: Pick<StreamExport, 'stream' | 'machine' | 'events'>) =>
  sha256(canonicalJson({ stream: doc.stream, machine: doc.machine, events: doc.events }));

/** An exported event back in the log's shape (its time in milliseconds), as the machines fold it. */
export const asLogged = (e: ExportedEvent): Pick<StoredEvent, 'type' | 'at' | 'data'> => ({
  type: e.type,
  at: Date.parse(e.at),
  data: e.data,
});

/**
 * A stream as a portable document: each event with the state it led to, the machine that folded it,
 * and a digest. `data` lets a reader's rule narrow what an event shows (it never adds to the log).
 */
export function exportStream(
  stream: string,
  rows: readonly StoredEvent[],
  options: { commit: string; nowMs: number; data?: (event: StoredEvent) => Record<string, unknown> },
): StreamExport {
  const machine = machineForStream(stream);
  if (!machine) throw new TypeError(`No machine folds ${stream}`);
  let snapshot = initialTransition(machine)[0];
  const events = rows.map((row): ExportedEvent => {
    snapshot = step(machine, snapshot, toMachineEvent(row));
    return {
      sequence: row.sequence,
      version: row.version,
      at: new Date(row.at).toISOString(),
      type: row.type,
      data: options.data ? options.data(row) : row.data,
      state: snapshot.value,
    };
  });
  const head = { stream, machine: { id: machine.id, version: machineVersion(machine) }, events };
  return {
    format: STREAM_EXPORT_FORMAT,
    stream,
    kind: streamKind(stream),
    machine: head.machine,
    commit: options.commit,
    exported_at: new Date(options.nowMs).toISOString(),
    events,
    final_state: snapshot.value,
    digest: exportDigest(head),
  };
}
