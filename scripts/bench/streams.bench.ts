import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventLog } from '../../adapters/store/sqlite-event-log.ts';
import type { NewEvent } from '../../services/event-log.ts';
import { diffRuns } from '../../services/streams/diff.ts';
import { exportStream } from '../../services/streams/export.ts';
import { opsPerSecond, type Bench, type BenchRow } from './types.ts';

const LONG_STREAM_EVENTS = 1_000;
const DIFF_EXCHANGES = 50;
const AT = Date.UTC(2026, 0, 1);

/** One captured token exchange as a run records it (form request, JSON response, a decoded token). */
function exchange(i: number, scope: string): NewEvent {
  return {
    type: 'run.exchange_recorded',
    at: AT + i,
    data: {
      step: `Token request ${i % 7}`,
      request: {
        method: 'POST',
        url: `https://portico.test/oauth2/token?n=${i}`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: '[redacted sha256:abcdefabcdef]',
        },
        body: { grant_type: 'client_credentials', scope },
      },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
        body: {
          access_token: `[redacted sha256:${String(i).padStart(12, '0')}]`,
          token_type: 'Bearer',
          expires_in: 300,
          scope,
        },
      },
      duration_ms: 1.25 + (i % 5),
      annotations: ['RFC 6749 §4.4.2'],
      tokens: [
        {
          name: 'access_token',
          header: { alg: 'ES256', kid: 'k1', typ: 'at+jwt' },
          payload: {
            iss: 'https://portico.test/oauth2',
            sub: 'demo-app',
            scope,
            jti: `jti-${i}-${scope.length}`,
            iat: 1_767_225_600 + i,
            exp: 1_767_225_900 + i,
          },
        },
      ],
    },
  };
}

const runEvents = (exchanges: number, scope = 'api:read'): NewEvent[] => [
  { type: 'run.started', at: AT, data: { protocol: 'oauth2', flow: 'client-credentials', options: {} } },
  ...Array.from({ length: exchanges }, (_, i) => exchange(i, scope)),
  { type: 'run.finished', at: AT + exchanges + 1, data: { status: 'succeeded' } },
];

/**
 * The debugging streams against the cost they cannot avoid, measured side by side in one run: an
 * export of a 1,000-event stream, and a diff of two 50-exchange runs, each as a ratio to reading the
 * same rows raw from the log (SQLite).
 */
const bench: Bench = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-streams-'));
  const log = new SqliteEventLog(join(dir, 'main.db'));
  try {
    await log.append('run:long', 0, runEvents(LONG_STREAM_EVENTS - 2));
    await log.append('run:a', 0, runEvents(DIFF_EXCHANGES));
    await log.append('run:b', 0, runEvents(DIFF_EXCHANGES, 'api:read api:write'));
    const options = { commit: 'bench', nowMs: AT };

    const rawLong = await opsPerSecond(() => log.readStream('run:long'));
    const exportLong = await opsPerSecond(async () =>
      exportStream('run:long', await log.readStream('run:long'), options),
    );
    const rawPair = await opsPerSecond(async () => Promise.all([log.readStream('run:a'), log.readStream('run:b')]));
    const diffPair = await opsPerSecond(async () => {
      const [a, b] = await Promise.all([log.readStream('run:a'), log.readStream('run:b')]);
      return diffRuns(exportStream('run:a', a, options), exportStream('run:b', b, options));
    });
    const ms = (perSecond: number) => 1000 / perSecond;
    const rows: BenchRow[] = [
      { name: `raw read of a ${LONG_STREAM_EVENTS}-event stream`, value: ms(rawLong), unit: 'ms' },
      {
        name: `export of the same stream (fold, canonical JSON, SHA-256)`,
        value: ms(exportLong),
        unit: 'ms',
        ratio: { against: 'raw read', value: rawLong / exportLong },
      },
      { name: `raw read of two ${DIFF_EXCHANGES}-exchange runs`, value: ms(rawPair), unit: 'ms' },
      {
        name: 'diff of the two runs (read, export both, compare)',
        value: ms(diffPair),
        unit: 'ms',
        ratio: { against: 'raw read', value: rawPair / diffPair },
      },
    ];
    return rows;
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

export default bench;
