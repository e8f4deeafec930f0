import { sql, type CommittedEvent, type Dialect, type SqlStatement } from './types.ts';
import { eventsOfStreams, ReadModel } from './read-model.ts';

export interface RunSummary {
  run_id: string;
  /** The log sequence of its start: the order of runs, and the position a page ends at. */
  started_sequence: number;
  protocol: string;
  flow: string;
  status: RunListStatus;
  started_at: number;
  finished_at: number | null;
  exchanges: number;
}

export interface RunQuery {
  protocol?: string;
  flow?: string;
  status?: RunSummary['status'];
  /** Runs started before this one (newest first): the previous page's last run, by its log sequence. */
  before?: number;
  limit: number;
}

type Row = Omit<RunSummary, 'started_sequence' | 'started_at' | 'finished_at'> & {
  started_sequence: number | string;
  started_at: number | string;
  finished_at: number | string | null;
};

/** Every state of the run machine after it started: a run is listed as its machine stands. */
export const RUN_LIST_STATUSES = [
  'running',
  'paused',
  'awaiting_user',
  'succeeded',
  'failed',
  'interrupted',
  'cancelled',
  'expired',
] as const;
type RunListStatus = (typeof RUN_LIST_STATUSES)[number];

/** The status an event of a run's stream moves it to, when it moves it (machines/flow-run.ts). */
const STATUS_AFTER: Readonly<Record<string, RunListStatus>> = {
  'run.paused': 'paused',
  'run.stepped': 'running',
  'run.continued': 'running',
  'run.awaiting_user': 'awaiting_user',
  'run.user_returned': 'running',
  'run.cancelled': 'cancelled',
  'run.expired': 'expired',
};

/** A run against a learner's own server is private (services/flows/run-access.ts): never listed. */
const targeted = (started: Record<string, unknown>) =>
  typeof started.options === 'object' && started.options !== null && 'target' in started.options;

/**
 * Every public flow run, newest first, for `GET /api/runs` and the `/runs` page: protocol, flow,
 * status, start and end, and how many exchanges it captured. Folded from the `run:` streams.
 */
export class RunIndex extends ReadModel {
  // `public_runs`: `run_list` without targeted runs (a new name folds the log afresh, into a new table).
  readonly name = 'public_runs';
  readonly tables = ['public_runs'];

  schema(dialect: Dialect): string[] {
    return [
      `CREATE TABLE IF NOT EXISTS public_runs (run_id TEXT PRIMARY KEY, started_sequence BIGINT NOT NULL, protocol TEXT NOT NULL, flow TEXT NOT NULL, status TEXT NOT NULL, started_at BIGINT NOT NULL, finished_at BIGINT, exchanges INTEGER NOT NULL)${dialect === 'sqlite' ? ' WITHOUT ROWID' : ''}`,
      'CREATE INDEX IF NOT EXISTS public_runs_newest ON public_runs (started_sequence)',
    ];
  }

  apply(events: readonly CommittedEvent[]): SqlStatement[] {
    const out: SqlStatement[] = [];
    for (const [runId, e] of eventsOfStreams(events, 'run')) {
      if (e.type === 'run.started' && !targeted(e.data))
        out.push(
          sql(
            "INSERT INTO public_runs (run_id, started_sequence, protocol, flow, status, started_at, finished_at, exchanges) VALUES (?, ?, ?, ?, 'running', ?, NULL, 0) ON CONFLICT DO NOTHING",
            runId,
            e.sequence,
            String(e.data.protocol),
            String(e.data.flow),
            e.at,
          ),
        );
      else if (e.type === 'run.exchange_recorded')
        out.push(sql('UPDATE public_runs SET exchanges = exchanges + 1 WHERE run_id = ?', runId));
      else if (e.type === 'run.finished' || e.type === 'run.interrupted')
        out.push(
          sql(
            'UPDATE public_runs SET status = ?, finished_at = ? WHERE run_id = ?',
            e.type === 'run.interrupted' ? 'interrupted' : String(e.data.status),
            e.at,
            runId,
          ),
        );
      else if (Object.hasOwn(STATUS_AFTER, e.type))
        out.push(
          sql(
            'UPDATE public_runs SET status = ?, finished_at = ? WHERE run_id = ?',
            STATUS_AFTER[e.type],
            e.type === 'run.cancelled' || e.type === 'run.expired' ? e.at : null,
            runId,
          ),
        );
    }
    return out;
  }

  /** One page of runs, newest first, and whether more follow. */
  async list(query: RunQuery): Promise<{ runs: RunSummary[]; more: boolean }> {
    const where: string[] = [];
    const params: unknown[] = [];
    for (const [column, value] of [
      ['protocol', query.protocol],
      ['flow', query.flow],
      ['status', query.status],
    ] as const)
      if (value !== undefined) {
        where.push(`${column} = ?`);
        params.push(value);
      }
    if (query.before !== undefined) {
      where.push('started_sequence < ?');
      params.push(query.before);
    }
    const rows = await this.read.all<Row>(
      `SELECT run_id, started_sequence, protocol, flow, status, started_at, finished_at, exchanges FROM public_runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY started_sequence DESC LIMIT ?`,
      [...params, query.limit + 1],
    );
    // PostgreSQL hands BIGINT back as text.
    const runs = rows.slice(0, query.limit).map((r) => ({
      ...r,
      started_sequence: Number(r.started_sequence),
      started_at: Number(r.started_at),
      finished_at: r.finished_at === null ? null : Number(r.finished_at),
      exchanges: Number(r.exchanges),
    }));
    return { runs, more: rows.length > query.limit };
  }
}
