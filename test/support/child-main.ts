import { spawn, type ChildProcess } from 'node:child_process';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Starts `npm start -- main` as a child process on `port` and resolves once it listens. */
export function startChildMain(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', 'main'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '1000000', BUILD_COMMIT: 'crash-test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening')) resolve(child);
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`server exited early (${code}): ${out}`)));
  });
}

/** Registers agents with `writers` concurrent callers until the server dies under them (or `until` holds). */
export async function registerUntilKilled(base: string, acknowledged: Array<{ agent_id: string; identity_assertion: string }>, failures: string[], stop: () => boolean, writers = 4): Promise<void> {
  await Promise.all(Array.from({ length: writers }, async () => {
    while (!stop()) {
      try {
        const res = await fetch(`${base}/agentauth/identity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"anonymous"}' });
        if (res.status === 201) acknowledged.push((await res.json()) as never);
      } catch (error) {
        failures.push(String((error as Error).cause ?? error));
        return; // connection refused or reset: the server is gone
      }
    }
  }));
}
