import { parseArgs } from 'node:util';
import { diffCommand } from './replay/diff.ts';
import { importExports } from './replay/import.ts';
import { replayLog } from './replay/log.ts';
import { replayStatusList } from './replay/status-list.ts';

/**
 * `npm run replay -- <db file | postgres://…> [--stream <id>] [--json]`: prints each stream's timeline (time, event,
 * resulting state), rebuilds every actor by folding its events through its machine, and exits 1
 * naming each stream whose fold differs from the snapshot the service holds.
 *
 * `npm run replay -- --import <export.json>…`: checks each stream export (format, digest) and folds it
 * through this commit's machines (docs/debugging.md).
 *
 * `npm run replay -- --diff <a> <b> [--base <url>]`: compares two runs, each an export file or `run:<id>`.
 *
 * `npm run replay -- <log> --status-list <id> [--json]`: rebuilds one credential status list from the log
 * (docs/status.md).
 */

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    stream: { type: 'string' },
    json: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    import: { type: 'string' },
    diff: { type: 'boolean', default: false },
    base: { type: 'string' },
    'status-list': { type: 'string' },
  },
});

// A reader that stops early (`| head`) is not an error of the replay.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

// Exit once stdout has drained: process.exit() here would cut a piped timeline short.
process.exitCode =
  values.import !== undefined
    ? await importExports([values.import, ...positionals], values.json)
    : values.diff
      ? await diffCommand(positionals, values.base, values.json)
      : values['status-list'] !== undefined
        ? await replayStatusList(positionals[0], values['status-list'], values.json)
        : await replayLog(positionals[0], values);
