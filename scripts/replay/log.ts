import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import { PostgresEventLog } from '../../adapters/store/postgres-event-log.ts';
import { SqliteEventLog } from '../../adapters/store/sqlite-event-log.ts';
import { machineForStream } from '../../machines/index.ts';
import { fold, persistedState, sameState, toMachineEvent } from '../../services/actors/fold.ts';
import type { EventLog } from '../../services/event-log.ts';

/** The log a replay reads, read-only: a SQLite file or a PostgreSQL URL; a bad argument exits 2. */
export async function openLog(file: string | undefined): Promise<EventLog> {
  const onPostgres = /^postgres(ql)?:\/\//.test(file ?? '');
  if (!file || (!onPostgres && !existsSync(file))) {
    console.error(
      'usage: npm run replay -- <db file | postgres:// URL> [--stream <id>] [--status-list <id>] [--json] [--quiet] | --import <file>…',
    );
    process.exit(2);
  }
  if (!onPostgres && !statSync(file).isFile()) {
    console.error(`${file} is a directory, not an event log: name a log file in it, e.g. ${join(file, 'main.db')}`);
    process.exit(2);
  }
  // Everything is read through the event-log interface, so another store can be replayed the same way.
  try {
    return onPostgres ? await PostgresEventLog.open(file) : new SqliteEventLog(file, { readonly: true });
  } catch (error) {
    console.error(`${file} could not be opened as an event log: ${(error as Error).message}`);
    process.exit(2);
  }
}

/**
 * Every stream of a log (or one): its timeline, and whether folding its events through its machine
 * gives the snapshot the service holds. Returns the exit code: 1 when a stream differs.
 */
export async function replayLog(
  file: string | undefined,
  values: { stream?: string; json: boolean; quiet: boolean },
): Promise<number> {
  const onPostgres = /^postgres(ql)?:\/\//.test(file ?? '');
  const log = await openLog(file);
  const streams = values.stream ? [values.stream] : await log.streamIds();

  type Step = { sequence: number; version: number; at: string; type: string; state?: unknown; data: unknown };
  type Report = {
    stream: string;
    events: number;
    state?: unknown;
    context?: unknown;
    verdict: 'consistent' | 'differs' | 'no snapshot' | 'no machine';
    detail?: string;
    timeline: Step[];
  };

  const reports: Report[] = [];
  for (const stream of streams) {
    const rows = await log.readStream(stream);
    const machine = machineForStream(stream);
    const timeline: Step[] = [];
    let snapshot: AnyMachineSnapshot | undefined = machine ? initialTransition(machine)[0] : undefined;
    for (const r of rows) {
      if (machine && snapshot) snapshot = transition(machine, snapshot, toMachineEvent(r))[0];
      timeline.push({
        sequence: r.sequence,
        version: r.version,
        at: new Date(r.at).toISOString(),
        type: r.type,
        state: snapshot?.value,
        data: r.data,
      });
    }
    const report: Report = { stream, events: rows.length, verdict: 'no machine', timeline };
    if (machine && snapshot) {
      report.state = snapshot.value;
      report.context = snapshot.context;
      const stored = await log.loadSnapshot(stream);
      if (!stored) report.verdict = 'no snapshot';
      else {
        // The stored snapshot may lag the log (a cache); compare it with the fold up to its version.
        const upTo = fold(machine, rows.slice(0, stored.version));
        const same = stored.version <= rows.length && sameState(persistedState(upTo), stored.state);
        report.verdict = same ? 'consistent' : 'differs';
        if (!same)
          report.detail = `snapshot at version ${stored.version} does not equal the fold of the first ${stored.version} events`;
      }
    }
    reports.push(report);
  }

  const differing = reports.filter((r) => r.verdict === 'differs');
  if (values.json) {
    console.log(
      JSON.stringify(
        {
          file: onPostgres ? new URL(file!).pathname.slice(1) : file,
          streams: reports,
          differing: differing.map((r) => r.stream),
        },
        null,
        2,
      ),
    );
  } else {
    for (const r of reports) {
      console.log(
        `\n${r.stream}  (${r.events} events, ${r.verdict}${r.state !== undefined ? `, state ${JSON.stringify(r.state)}` : ''})`,
      );
      if (values.quiet) continue;
      for (const s of r.timeline) {
        console.log(
          `  #${String(s.sequence).padStart(6)} v${s.version}  ${s.at}  ${s.type.padEnd(28)} -> ${s.state === undefined ? '' : JSON.stringify(s.state)}`,
        );
      }
      if (r.detail) console.log(`  ! ${r.detail}`);
    }
    console.log(
      `\n${reports.length} stream(s), ${differing.length} differing${differing.length ? `: ${differing.map((r) => r.stream).join(', ')}` : ''}`,
    );
  }
  await log.close();
  return differing.length > 0 ? 1 : 0;
}
