import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnvironment, loadToolSettings } from '../../adapters/config.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

export interface ChildServer {
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** Milliseconds from spawn until the process printed that it listens. */
  startMs: number;
  stop(): Promise<void>;
}

/** Runs the main origin (or the wallet, or all of `npm start`'s services) in its own process, so a load or a tester does not share its event loop. */
export async function startChildServer(
  options: { dataDir?: string; env?: Record<string, string>; service?: 'main' | 'wallet'; nodeArgs?: string[] } = {},
): Promise<ChildServer> {
  const port = await freePort();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'portico-bench-'));
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const service = options.service ?? 'main';
  const ports =
    service === 'wallet' ? { WALLET_PORT: String(port), WALLET_URL: url } : { PORT: String(port), BASE_URL: url };
  // BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of each server process there (for finding where a flow's time goes).
  const profileDir = loadToolSettings().benchCpuProfileDir;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(
    process.execPath,
    [...profile, ...(options.nodeArgs ?? []), '--import', 'tsx', 'scripts/start.ts', service],
    {
      cwd: ROOT,
      env: childEnvironment({
        ...ports,
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        RATE_LIMIT_PER_MINUTE: '100000000',
        BUILD_COMMIT: 'bench',
        ...options.env,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening')) resolve();
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
  const startMs = performance.now() - started;
  return {
    url,
    dataDir,
    child,
    startMs,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The wallet harness in its own process, targeting `mainUrl` and trusting that origin's IACA root and
 * verifier CA, as it does when `npm start` runs both in one process.
 */
export async function startWalletBeside(mainUrl: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const pem = async (path: string) => (await fetch(`${mainUrl}${path}`)).text();
  return startChildServer({
    service: 'wallet',
    env: {
      BASE_URL: mainUrl,
      WALLET_MDOC_IACA_ROOT_PEM: await pem('/oid4vci/iaca.pem'),
      WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM: await pem('/oid4vp/ca.pem'),
      ...env,
    },
  });
}

/** A peer implementation (a script printing `listening <url>`) in its own process, like ours. */
export async function startPeerProcess(
  script: string,
  env: Record<string, string> = {},
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: childEnvironment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}): ${out}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 1/100 s). */
export function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Ends a side-by-side comparison: the peer, then our server, whose data directory goes too. */
export async function stopComparison(server: ChildServer, peer: { stop(): Promise<void> }): Promise<void> {
  await peer.stop();
  await server.stop();
  rmSync(server.dataDir, { recursive: true, force: true });
}
