import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../adapters/config.ts';
import { createWalletService, type WalletOptions, type WalletService } from '../../adapters/http/wallet/app.ts';
import { ManualClock } from '../../services/clock.ts';

export interface TestWallet {
  url: string;
  clock: ManualClock;
  wallet: WalletService;
  config: Config;
  dataDir: string;
  close(options?: { keepData?: boolean }): Promise<void>;
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** The wallet harness on a loopback port with a manual clock and a temp DATA_DIR. */
export async function startWalletServer(
  options: {
    env?: Record<string, string>;
    dataDir?: string;
    clock?: ManualClock;
    port?: number;
    wallet?: WalletOptions;
  } = {},
): Promise<TestWallet> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'portico-wallet-'));
  const port = options.port ?? (await freePort());
  const clock = options.clock ?? new ManualClock(Date.now());
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    HOST: '127.0.0.1',
    WALLET_PORT: String(port),
    WALLET_URL: url,
    BASE_URL: 'http://127.0.0.1:1',
    DATA_DIR: dataDir,
    RATE_LIMIT_PER_MINUTE: '100000',
    BUILD_COMMIT: 'test-commit',
    ...options.env,
  });
  const wallet = await createWalletService(config, { clock, ...options.wallet });
  await wallet.app.listen({ host: '127.0.0.1', port });
  return {
    url,
    clock,
    wallet,
    config,
    dataDir,
    async close({ keepData = false } = {}) {
      await wallet.close();
      if (!keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
