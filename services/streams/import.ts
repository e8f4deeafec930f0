import { initialTransition } from 'xstate';
import { machineForStream } from '../../machines/index.ts';
import { step, toMachineEvent } from '../actors/fold.ts';
import { sameText } from '../crypto/compare.ts';
import { canonicalJson } from './canonical-json.ts';
import { asLogged, exportDigest, STREAM_EXPORT_FORMAT, type ExportedEvent, type StreamExport } from './export.ts';
import { machineVersion } from './machine-version.ts';

/** Why an export file is refused before anything of it is believed (one line). */
export class ExportRefused extends Error {
  override name = 'ExportRefused';
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function checkEvent(e: unknown, index: number): asserts e is ExportedEvent {
  if (
    !isObject(e) ||
    !Number.isSafeInteger(e.sequence) ||
    !Number.isSafeInteger(e.version) ||
    typeof e.type !== 'string' ||
    typeof e.at !== 'string' ||
    Number.isNaN(Date.parse(e.at)) ||
    !isObject(e.data)
  )
    throw new ExportRefused(`event ${index + 1} is not {sequence, version, at, type, data, state}`);
}

/** An export file's content, checked: its format, its shape and its digest. */
/** The shape of a stream export, each member checked, every event in turn (a refusal names the first fault). */
function checkExport(value: unknown): asserts value is StreamExport {
  if (!isObject(value)) throw new ExportRefused('not a stream export (a JSON object is expected)');
  if (value.format !== STREAM_EXPORT_FORMAT)
    throw new ExportRefused(
      `unknown format ${JSON.stringify(value.format)}; this commit reads ${STREAM_EXPORT_FORMAT}`,
    );
  const machine = value.machine;
  if (typeof value.stream !== 'string' || !isObject(machine) || typeof machine.version !== 'string')
    throw new ExportRefused('stream and machine {id, version} are required');
  if (!Array.isArray(value.events)) throw new ExportRefused('events must be an array');
  value.events.forEach(checkEvent);
  if (typeof value.digest !== 'string') throw new ExportRefused('digest is missing');
}

export function readExport(value: unknown): StreamExport {
  checkExport(value);
  if (!sameText(exportDigest(value), value.digest))
    throw new ExportRefused('digest mismatch: the file was changed after it was exported');
  return value;
}

interface RefoldStep {
  version: number;
  at: string;
  type: string;
  recorded: unknown;
  folded: unknown;
}

export interface Refold {
  stream: string;
  /** Whether the file's machine is this commit's (same definition). */
  same_machine: boolean;
  timeline: RefoldStep[];
  /** The first event whose recorded state is not this commit's fold (1-based), when one is. */
  divergence?: { event: number; recorded: unknown; folded: unknown };
  final_state: unknown;
}

/** Folds an export's events through this commit's machine of its kind, noting the first divergence. */
export function refold(doc: StreamExport): Refold {
  const machine = machineForStream(doc.stream);
  if (!machine) throw new ExportRefused(`no machine of this commit folds ${JSON.stringify(doc.stream)}`);
  let snapshot = initialTransition(machine)[0];
  const timeline: RefoldStep[] = [];
  let divergence: Refold['divergence'];
  for (const [index, e] of doc.events.entries()) {
    snapshot = step(machine, snapshot, toMachineEvent(asLogged(e)));
    timeline.push({ version: e.version, at: e.at, type: e.type, recorded: e.state, folded: snapshot.value });
    if (!divergence && canonicalJson(e.state ?? null) !== canonicalJson(snapshot.value))
      divergence = { event: index + 1, recorded: e.state, folded: snapshot.value };
  }
  return {
    stream: doc.stream,
    same_machine: doc.machine.version === machineVersion(machine),
    timeline,
    ...(divergence ? { divergence } : {}),
    final_state: snapshot.value,
  };
}
