import { foldStatusEntries } from '../../projections/credential-status.ts';
import type { CommittedEvent } from '../../projections/types.ts';
import {
  compressTokenList,
  countStatuses,
  packStatuses,
  statusTypeName,
} from '../../services/credentials/status-list/bits.ts';
import { openLog } from './log.ts';

const BATCH = 5_000;

/**
 * `npm run replay -- <log> --status-list <id> [--json]`: rebuilds one status list from the log alone
 * (the `status_list.opened` event and every `credential.status_changed` of it, in commit order), the
 * same fold the `credential_status` read model makes, and prints its counts and `lst` (the
 * ZLIB-compressed bytes, base64url) to compare with the list the issuer serves. Exit 2: no such list.
 */
export async function replayStatusList(file: string | undefined, listId: string, asJson: boolean): Promise<number> {
  const log = await openLog(file);
  const events: CommittedEvent[] = [];
  let opened: CommittedEvent | undefined;
  for (let after = 0; ;) {
    const batch = await log.readAll(after, BATCH);
    for (const e of batch) {
      if (e.type === 'status_list.opened' && e.data.list_id === listId) opened = e;
      else if (e.type === 'credential.status_changed' && e.data.list_id === listId) events.push(e);
    }
    if (batch.length < BATCH) break;
    after = batch[batch.length - 1].sequence;
  }
  await log.close();
  if (!opened) {
    console.error(`no status list ${JSON.stringify(listId)} was opened in this log`);
    return 2;
  }
  const size = Number(opened.data.size);
  const bits = Number(opened.data.bits);
  const entries = foldStatusEntries(events, listId);
  const bytes = packStatuses(size, bits, entries);
  const counts = Object.fromEntries(countStatuses(bytes, bits).map((n, value) => [statusTypeName(value), n]));
  const report = {
    list_id: listId,
    size,
    bits,
    changes: events.length,
    counts,
    entries: [...entries].sort(([a], [b]) => a - b).map(([idx, value]) => ({ idx, status: statusTypeName(value) })),
    lst: compressTokenList(bytes).toString('base64url'),
  };
  if (asJson) console.log(JSON.stringify(report, null, 2));
  else {
    console.log(`status list ${listId}: ${size} entries of ${bits} bits, ${events.length} change(s)`);
    for (const [name, n] of Object.entries(counts)) console.log(`  ${name.padEnd(20)} ${n}`);
    for (const e of report.entries) console.log(`  idx ${String(e.idx).padStart(6)}  ${e.status}`);
  }
  return 0;
}
