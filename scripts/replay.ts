import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { machineForStream } from '../machines/index.ts';
import { fold, persistedState, sameState, toMachineEvent } from '../services/actors/fold.ts';
import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';

/**
 * `npm run replay -- <db> [--stream <id>] [--json]`: prints each stream's timeline (time, event,
 * resulting state), rebuilds every actor by folding its events through its machine, and exits 1
 * naming each stream whose fold differs from the snapshot the service holds.
 */
interface Row { sequence: number; stream_id: string; version: number; type: string; data: string; at: number }

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { stream: { type: 'string' }, json: { type: 'boolean', default: false }, quiet: { type: 'boolean', default: false } },
});
const file = positionals[0];
if (!file || !existsSync(file)) {
  console.error('usage: npm run replay -- <db> [--stream <id>] [--json] [--quiet]');
  process.exit(2);
}

// A reader that stops early (`| head`) is not an error of the replay.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const db = new Database(file, { readonly: true, fileMustExist: true });
const streams = values.stream
  ? [values.stream]
  : db.prepare<[], { stream_id: string }>('SELECT DISTINCT stream_id FROM events ORDER BY stream_id').all().map((r) => r.stream_id);
const readStream = db.prepare<[string], Row>('SELECT * FROM events WHERE stream_id = ? ORDER BY version');
const readSnapshot = db.prepare<[string], { version: number; state: string }>('SELECT version, state FROM snapshots WHERE stream_id = ?');

type Step = { sequence: number; version: number; at: string; type: string; state?: unknown; data: unknown };
type Report = { stream: string; events: number; state?: unknown; context?: unknown; verdict: 'consistent' | 'differs' | 'no snapshot' | 'no machine'; detail?: string; timeline: Step[] };

const reports: Report[] = [];
for (const stream of streams) {
  const rows = readStream.all(stream);
  const machine = machineForStream(stream);
  const timeline: Step[] = [];
  let snapshot: AnyMachineSnapshot | undefined = machine ? initialTransition(machine)[0] : undefined;
  for (const r of rows) {
    const event = { type: r.type, at: r.at, data: JSON.parse(r.data) as Record<string, unknown> };
    if (machine && snapshot) snapshot = transition(machine, snapshot, toMachineEvent(event))[0];
    timeline.push({ sequence: r.sequence, version: r.version, at: new Date(r.at).toISOString(), type: r.type, state: snapshot?.value, data: event.data });
  }
  const report: Report = { stream, events: rows.length, verdict: 'no machine', timeline };
  if (machine && snapshot) {
    report.state = snapshot.value;
    report.context = snapshot.context;
    const stored = readSnapshot.get(stream);
    if (!stored) report.verdict = 'no snapshot';
    else {
      // The stored snapshot may lag the log (a cache); compare it with the fold up to its version.
      const upTo = fold(machine, rows.slice(0, stored.version).map((r) => ({ ...r, streamId: r.stream_id, data: JSON.parse(r.data) as Record<string, unknown> })));
      const same = stored.version <= rows.length && sameState(persistedState(upTo), JSON.parse(stored.state));
      report.verdict = same ? 'consistent' : 'differs';
      if (!same) report.detail = `snapshot at version ${stored.version} does not equal the fold of the first ${stored.version} events`;
    }
  }
  reports.push(report);
}

const differing = reports.filter((r) => r.verdict === 'differs');
if (values.json) {
  console.log(JSON.stringify({ file, streams: reports, differing: differing.map((r) => r.stream) }, null, 2));
} else {
  for (const r of reports) {
    console.log(`\n${r.stream}  (${r.events} events, ${r.verdict}${r.state !== undefined ? `, state ${JSON.stringify(r.state)}` : ''})`);
    if (values.quiet) continue;
    for (const s of r.timeline) {
      console.log(`  #${String(s.sequence).padStart(6)} v${s.version}  ${s.at}  ${s.type.padEnd(28)} -> ${s.state === undefined ? '' : JSON.stringify(s.state)}`);
    }
    if (r.detail) console.log(`  ! ${r.detail}`);
  }
  console.log(`\n${reports.length} stream(s), ${differing.length} differing${differing.length ? `: ${differing.map((r) => r.stream).join(', ')}` : ''}`);
}
db.close();
// Exit once stdout has drained: process.exit() here would cut a piped timeline short.
process.exitCode = differing.length > 0 ? 1 : 0;
