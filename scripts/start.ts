import { loadConfig } from '../adapters/config.ts';
import type { RunningService, ServiceName } from '../adapters/services.ts';

/**
 * `npm start` runs every service of the deployment in one process; `npm start -- main` (or
 * `npm run start:main`, `start:wallet`, `start:spiffe`) runs one. SIGTERM/SIGINT close HTTP, let
 * in-flight requests and appends finish, then close SQLite.
 */
const fail = (message: string): never => {
  console.error(`portico: could not start: ${message}`);
  process.exit(1);
};
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
  // A bad WALLET_* value stops start before any service module is loaded (a quick, clear failure).
  if (process.argv[2] === undefined || process.argv[2] === 'wallet') void config.wallet;
} catch (error) {
  fail((error as Error).message);
}
const { SERVICES } = await import('../adapters/services.ts');
const wanted = (process.argv[2] ? [process.argv[2]] : Object.keys(SERVICES)) as ServiceName[];
for (const name of wanted) {
  if (!(name in SERVICES)) {
    console.error(`unknown service "${name}"; choose one of ${Object.keys(SERVICES).join(', ')}`);
    process.exit(2);
  }
}

const running: RunningService[] = [];
try {
  for (const name of wanted) running.push(await SERVICES[name](config!, wanted));
} catch (error) {
  console.error(`portico: could not start: ${(error as Error).message}`);
  for (const s of running) await s.close();
  process.exit(1);
}
for (const s of running) console.log(`portico: ${s.name} listening on ${s.url}`);

// npm runs this file with `exec node`, so the signal a supervisor sends to the started process
// (systemd, a container runtime, npm forwarding it) reaches this process, which stops every service.
const STOP_DEADLINE_MS = 10_000;
let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`portico: ${signal}, shutting down`);
  setTimeout(() => {
    console.error(`portico: services did not stop within ${STOP_DEADLINE_MS / 1000} s; exiting`);
    process.exit(1);
  }, STOP_DEADLINE_MS).unref();
  for (const s of running) await s.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
