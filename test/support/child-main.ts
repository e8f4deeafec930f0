import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { freePort } from './wallet-server.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Starts `npm start -- main` as a child process on `port` and resolves once it listens. */
export function startChildMain(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', 'main'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT_PER_MINUTE: '1000000',
      BUILD_COMMIT: 'crash-test',
      ...env,
    },
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
export async function registerUntilKilled(
  base: string,
  acknowledged: Array<{ agent_id: string; identity_assertion: string }>,
  failures: string[],
  stop: () => boolean,
  writers = 4,
): Promise<void> {
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (!stop()) {
        try {
          const res = await fetch(`${base}/agentauth/identity`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"type":"anonymous"}',
          });
          if (res.status === 201) acknowledged.push((await res.json()) as never);
        } catch (error) {
          failures.push(String((error as Error).cause ?? error));
          return; // connection refused or reset: the server is gone
        }
      }
    }),
  );
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * The crash test on any store: four writers register until the main origin is SIGKILLed under them,
 * the origin starts again on the same store, and every acknowledged registration's assertion is
 * redeemed exactly once (a second redemption is refused). Returns what was acknowledged.
 */
export async function killUnderLoadThenRedeemEach(
  env: Record<string, string>,
  atLeast: number,
): Promise<Array<{ agent_id: string; identity_assertion: string }>> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const first = await startChildMain(port, env);
  const acknowledged: Array<{ agent_id: string; identity_assertion: string }> = [];
  const failures: string[] = [];
  let stop = false;
  const writers = registerUntilKilled(base, acknowledged, failures, () => stop);
  while (acknowledged.length < atLeast && failures.length < 4) await new Promise((r) => setTimeout(r, 5));
  expect(failures).toEqual([]);
  const exited = new Promise((r) => first.once('exit', r));
  first.kill('SIGKILL');
  stop = true;
  await writers;
  await exited;
  expect(acknowledged.length).toBeGreaterThanOrEqual(atLeast);

  const second = await startChildMain(port, env);
  try {
    for (const reg of acknowledged) {
      const redeem = () =>
        fetch(`${base}/agentauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: reg.identity_assertion }),
        });
      expect((await redeem()).status, `first redemption of ${reg.agent_id}`).toBe(200);
      expect((await redeem()).status).toBe(400);
    }
  } finally {
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
  }
  expect(second.exitCode ?? 0).toBe(0);
  return acknowledged;
}
