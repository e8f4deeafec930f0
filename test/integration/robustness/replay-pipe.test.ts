import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteEventLog } from '../../../adapters/store/sqlite-event-log.ts';

// Issue 13 item 12: `npm run replay` piped into another program loses nothing, the verdict line included.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('npm run replay through a pipe (issue 13 item 12)', () => {
  it('a timeline far larger than a pipe buffer arrives whole, verdict last, read slowly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-replay-'));
    const log = new SqliteEventLog(join(dir, 'main.db'));
    const runs = 2000;
    await Promise.all(
      Array.from({ length: runs }, (_, i) =>
        log.append(`run:r${i}`, 0, [
          {
            type: 'run.started',
            at: 1_700_000_000_000 + i,
            data: { protocol: 'oauth2', flow: 'client-credentials', options: {} },
          },
        ]),
      ),
    );
    await log.close();
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', join(dir, 'main.db')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // Read slowly, as `| wc -l` on a busy machine might: pause after every chunk.
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), 2);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(0);
    const lines = text.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('run:')).length).toBe(runs);
    expect(lines.filter((l) => /^\s+#\s*\d+ v1 /.test(l)).length).toBe(runs);
    expect(text.length).toBeGreaterThan(200 * 1024);
    expect(lines[lines.length - 1]).toBe(`${runs} stream(s), 0 differing`);
  }, 60_000);
});
