import { machineForStream } from '../../machines/index.ts';
import { fold } from '../actors/fold.ts';
import { asLogged, type StreamExport } from './export.ts';

/**
 * The machine's state and context just after event `version` of an export (time travel): folded
 * from the events as the reader sees them, so nothing withheld from the export reappears here.
 */
export function stateAt(doc: StreamExport, version: number): { state: unknown; context: unknown } | undefined {
  const machine = machineForStream(doc.stream);
  const upTo = doc.events.findIndex((e) => e.version === version);
  if (!machine || upTo < 0) return undefined;
  const snapshot = fold(machine, doc.events.slice(0, upTo + 1).map(asLogged));
  return { state: snapshot.value, context: snapshot.context };
}
