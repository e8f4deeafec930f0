import { createHash } from 'node:crypto';
import pg from 'pg';
import type { InstanceLiveness } from '../../services/instances.ts';

/** The first key of every liveness lock ("live" in ASCII), apart from the append lock's. */
const LIVENESS_KEY = 0x6c697665;

/** The second key of an instance's lock: 31 bits of its id's hash (pg_locks shows it as an oid). */
const keyOf = (instance: string) => createHash('sha256').update(instance).digest().readUInt32BE(0) & 0x7fffffff;

/**
 * Instances sharing one PostgreSQL: each holds a session-level advisory lock named by its id on a
 * connection of its own, for as long as it runs. The server drops the lock with the connection, so a
 * stopped or killed instance is seen gone by the others at once, with no heartbeat in the log.
 */
export class PostgresLiveness implements InstanceLiveness {
  private constructor(
    readonly self: string,
    private readonly holder: pg.Client,
    private readonly pool: pg.Pool,
  ) {}

  static async open(connectionString: string, self: string, pool: pg.Pool): Promise<PostgresLiveness> {
    const holder = new pg.Client({ connectionString });
    // A lost connection drops the lock: the others then see this instance gone, which is what it is
    // to them; its runs end. Nothing here may take the process down.
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1::int4, $2::int4)', [LIVENESS_KEY, keyOf(self)]);
    return new PostgresLiveness(self, holder, pool);
  }

  async alive(instance: string): Promise<boolean> {
    if (instance === this.self) return true;
    // A two-key advisory lock shows its keys as classid and objid, with objsubid 2.
    const { rows } = await this.pool.query<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
         AND classid = $1::int4::oid AND objid = $2::int4::oid AND objsubid = 2) AS held`,
      [LIVENESS_KEY, keyOf(instance)],
    );
    return rows[0].held;
  }

  async close(): Promise<void> {
    await this.holder.end().catch(() => undefined);
  }
}
