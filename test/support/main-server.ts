import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../adapters/config.ts';
import { createMainOrigin, type MainOptions, type MainOrigin } from '../../adapters/http/main/compose.ts';
import { ManualClock } from '../../services/clock.ts';

export interface TestServer {
  /** `http://127.0.0.1:<port>`: the real server on a loopback port. */
  url: string;
  clock: ManualClock;
  main: MainOrigin;
  dataDir: string;
  config: Config;
  /** Closes the server; removes the data directory unless `keepData`. */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  /** Reuse a data directory (e.g. to test a restart). */
  dataDir?: string;
  clock?: ManualClock;
  /** Listen on this port (e.g. the port of a previous run, so issuer URLs stay the same). */
  port?: number;
  /** The host name of BASE_URL (default 127.0.0.1), e.g. `localhost` where a DNS name is needed (x509_san_dns). */
  baseHost?: string;
  /** Passed to createMainOrigin (lower SSE bounds, a short request timeout). */
  origin?: Pick<MainOptions, 'sseLimits' | 'requestTimeoutMs' | 'routes'>;
}

/**
 * Starts the main origin on an ephemeral loopback port with a real SQLite file in a temp directory and a
 * manual clock. BASE_URL is the listening address, so issuers and audiences match what clients see.
 */
export async function startMainServer(options: TestServerOptions = {}, attempt = 1): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'portico-test-'));
  const clock = options.clock ?? new ManualClock(Date.now());
  // Bind first to learn the port, then build the config around it.
  const net = await import('node:net');
  const port =
    options.port ??
    (await new Promise<number>((resolve, reject) => {
      const probe = net.createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    }));
  const url = `http://${options.baseHost ?? '127.0.0.1'}:${port}`;
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: url,
    DATA_DIR: dataDir,
    BUILD_COMMIT: 'test-commit',
    RATE_LIMIT_PER_MINUTE: '100000',
    ...options.env,
  });
  // Flow runs "wait" by moving the manual clock, so a 5 s poll interval costs no real time.
  const main = await createMainOrigin(config, { clock, wait: async (ms) => clock.advance(ms), ...options.origin });
  try {
    await main.app.listen({ host: '127.0.0.1', port });
  } catch (error) {
    // The port was free when probed; another test process may have taken it while the origin was built.
    await main.close();
    if (options.port !== undefined || attempt >= 3 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE')
      throw error;
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    return startMainServer(options, attempt + 1);
  }
  return {
    url,
    clock,
    main,
    dataDir,
    config,
    async close({ keepData = false } = {}) {
      await main.close();
      if (!keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A form-encoded POST, as OAuth endpoints expect. */
export function form(body: Record<string, string>, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body).toString(),
  };
}

/** A JSON POST. */
export function json(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** One request to a test server; the body parsed as JSON when there is one. */
export async function exchange(
  base: string,
  path: string,
  init: RequestInit,
): Promise<{ status: number; headers: Headers; body: Record<string, any> }> {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** Both extensions beyond the specification on (decisions §11): what issue 36 built. */
export const EXTENSIONS_ON = { DYNAMIC_CLIENTS: 'true', MCP_USER_ENDPOINT: 'true' } as const;
