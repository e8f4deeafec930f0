import { existsSync } from 'node:fs';
import { PostgresEventLog } from '../adapters/store/postgres-event-log.ts';
import { SqliteEventLog } from '../adapters/store/sqlite-event-log.ts';
import { machineForStream } from '../machines/index.ts';
import { fold, persistedState, sameState } from '../services/actors/fold.ts';
import type { EventLog, NewEvent, StoredEvent } from '../services/event-log.ts';

/**
 * `npm run migrate-log -- <main.db> <postgres://…>`: copies a SQLite event log into an empty
 * PostgreSQL database through both logs' interfaces, in commit order, so every event keeps its
 * sequence, stream and version. Then every stream is read back from PostgreSQL and checked: the same
 * events, and (for streams with a machine) the same fold. Read models are not copied: the main origin
 * rebuilds them from the log on its first start on PostgreSQL. Exits 1 naming any stream that differs.
 */
const [source, target] = process.argv.slice(2);
if (!source || !existsSync(source) || !target || !/^postgres(ql)?:\/\//.test(target)) {
  console.error('usage: npm run migrate-log -- <sqlite file> <postgres:// URL>');
  process.exit(2);
}

const from = new SqliteEventLog(source, { readonly: true });
const to = await PostgresEventLog.open(target);
if ((await to.headSequence()) !== 0) {
  console.error('the PostgreSQL event log is not empty: migrate into a fresh database');
  process.exit(2);
}

const PAGE = 5_000;
let after = 0;
let copied = 0;
/** Consecutive events of one stream go in one append; sequences stay equal because the order is the log's. */
async function copy(run: StoredEvent[]): Promise<void> {
  const events: NewEvent[] = run.map((e) => ({ type: e.type, data: e.data, at: e.at }));
  const stored = await to.append(run[0].streamId, run[0].version - 1, events);
  if (stored[0].sequence !== run[0].sequence)
    throw new Error(`sequence ${run[0].sequence} arrived as ${stored[0].sequence}`);
  copied += stored.length;
}
for (;;) {
  const page = await from.readAll(after, PAGE);
  if (page.length === 0) break;
  // Appends of one page are made together: the log commits them in call order, in few transactions.
  const copies: Promise<void>[] = [];
  let run: StoredEvent[] = [];
  for (const e of page) {
    if (run.length > 0 && run[run.length - 1].streamId !== e.streamId) {
      copies.push(copy(run));
      run = [];
    }
    run.push(e);
  }
  copies.push(copy(run));
  await Promise.all(copies);
  after = page[page.length - 1].sequence;
  process.stdout.write(`\rcopied ${copied} events`);
}
process.stdout.write('\n');

const differing: string[] = [];
const streams = await from.streamIds();
for (const stream of streams) {
  const [a, b] = await Promise.all([from.readStream(stream), to.readStream(stream)]);
  const sameEvents =
    a.length === b.length &&
    a.every(
      (e, i) =>
        e.sequence === b[i].sequence &&
        e.version === b[i].version &&
        e.type === b[i].type &&
        e.at === b[i].at &&
        sameState(e.data, b[i].data),
    );
  const machine = machineForStream(stream);
  const sameFold = !machine || sameState(persistedState(fold(machine, a)), persistedState(fold(machine, b)));
  if (!sameEvents || !sameFold) differing.push(stream);
}
console.log(
  `${streams.length} stream(s), ${copied} event(s) copied, ${differing.length} differing${differing.length ? `: ${differing.join(', ')}` : ''}`,
);
await closeBoth(from, to);
process.exitCode = differing.length > 0 ? 1 : 0;

async function closeBoth(...logs: EventLog[]): Promise<void> {
  for (const log of logs) await log.close();
}
