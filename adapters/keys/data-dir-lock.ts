import { closeSync, openSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const LOCK_FILE = '.provisioning.lock';
/** The holder touches the lock this often (a first start on a long log may fold it for minutes)... */
const HEARTBEAT_MS = 5_000;
/** ...so a lock untouched for this long is a crashed holder's. */
const STALE_MS = 30_000;

function alive(lockFile: string): boolean {
  try {
    return Date.now() - statSync(lockFile).mtimeMs < STALE_MS;
  } catch {
    return false;
  }
}

/**
 * Runs `work` while holding `$DATA_DIR/.provisioning.lock`: instances sharing a data directory (several
 * gateways on one volume) must not each create their own keys and certificates on a first start; the
 * second waits and then reads what the first wrote.
 */
export async function withDataDirLock<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const lockFile = join(dataDir, LOCK_FILE);
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!alive(lockFile)) rmSync(lockFile, { force: true });
      else await sleep(50);
    }
  }
  const heartbeat = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(lockFile, now, now);
    } catch {
      // removed by hand: nothing to keep fresh
    }
  }, HEARTBEAT_MS).unref();
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
    rmSync(lockFile, { force: true });
  }
}
