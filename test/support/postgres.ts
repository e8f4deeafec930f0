import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './wallet-server.ts';

/**
 * A real PostgreSQL for tests: with TEST_DATABASE_URL (a server CI or a developer runs), a fresh
 * database on it; otherwise a temporary cluster of Debian's `postgresql` started here (as the
 * `postgres` user when the tests run as root, since PostgreSQL refuses to run as root), removed at
 * `stop()`. Without PostgreSQL on the machine, `available` is false (CI treats that as an error).
 */
export interface TestPostgres {
  url: string;
  /** A fresh, empty database on the same server. */
  database(): Promise<string>;
  /** Restarts the server (connections drop); only for the cluster this harness started. */
  restart?(): Promise<void>;
  stop(): Promise<void>;
}

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  const dir = version && join(root, version, 'bin');
  return dir && existsSync(join(dir, 'initdb')) ? dir : undefined;
}

export const postgresAvailable = Boolean(process.env.TEST_DATABASE_URL) || binDir() !== undefined;
if (!postgresAvailable && process.env.CI === 'true')
  throw new Error("PostgreSQL is missing: .ci/run installs Debian's postgresql; PostgreSQL tests never skip in CI");

let counter = 0;
async function createDatabase(serverUrl: string): Promise<string> {
  const name = `portico_test_${process.pid}_${Date.now().toString(36)}_${++counter}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function startPostgres(): Promise<TestPostgres> {
  if (process.env.TEST_DATABASE_URL) {
    const server = process.env.TEST_DATABASE_URL;
    return { url: await createDatabase(server), database: () => createDatabase(server), stop: async () => undefined };
  }
  const bin = binDir();
  if (!bin) throw new Error('PostgreSQL is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'portico-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot)
    chownSync(
      dir,
      Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
      Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
    );
  const run = (tool: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { stdio: 'pipe' })
      : execFileSync(join(bin, tool), args, { stdio: 'pipe' });
  const port = await freePort();
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'portico', '--no-sync', '-E', 'UTF8']);
  // fsync off: a test cluster lives for one run; crash tests kill the gateway, not PostgreSQL.
  // pg_stat_statements (when installed) lets the store bench count statements per request.
  const version = bin.split('/').at(-2)!;
  const statements = existsSync(`/usr/share/postgresql/${version}/extension/pg_stat_statements.control`)
    ? ' -c shared_preload_libraries=pg_stat_statements'
    : '';
  const options = `-c port=${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c max_connections=200${statements}`;
  run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', options, 'start']);
  const server = `postgres://portico@127.0.0.1:${port}/postgres`;
  return {
    url: await createDatabase(server),
    database: () => createDatabase(server),
    restart: async () => {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', options, 'start']);
    },
    stop: async () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
