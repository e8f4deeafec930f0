import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const LOCK_FILE = '.provisioning.lock';
/** A lock older than this is a crashed holder's (provisioning takes seconds). */
const STALE_MS = 60_000;
const GIVE_UP_MS = 90_000;

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
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!alive(lockFile)) rmSync(lockFile, { force: true });
      else if (Date.now() > deadline) throw new Error(`${lockFile} is held by another instance; remove it if none is starting`);
      else await sleep(50);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lockFile, { force: true });
  }
}
