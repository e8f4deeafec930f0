import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 13 item 13: a signal to the process `npm start` started stops the services and frees the ports.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('npm start and signals (issue 13 item 13)', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the npm start process stops every service and frees its ports`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'portico-start-'));
      const [port, spiffePort] = [await freePort(), await freePort()];
      const child = spawn('npm', ['start', '--silent', '--', 'main'], {
        cwd: ROOT,
        // vitest sets BASE_URL=/ in its own environment; the service must not inherit it.
        env: {
          ...process.env,
          BASE_URL: `http://127.0.0.1:${port}`,
          PORT: String(port),
          SPIFFE_PORT: String(spiffePort),
          DATA_DIR: dir,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d.toString()));
      child.stderr.on('data', (d) => (output += d.toString()));
      await expect.poll(() => output, { timeout: 30_000, interval: 100 }).toMatch(/main listening/);
      expect(await accepts(port)).toBe(true);
      child.kill(signal);
      // 'close', not 'exit': npm may exit before the service it started has written its last line; the
      // pipe closes only when every process holding it has gone.
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      rmSync(dir, { recursive: true, force: true });
      expect(output).toContain(`${signal}, shutting down`);
      expect(code).toBe(0);
      expect(await accepts(port)).toBe(false);
    }, 60_000);
  }
});
