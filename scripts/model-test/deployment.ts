import { rmSync } from 'node:fs';
import { startChildServer, startWalletBeside, type ChildServer } from '../support/child-server.ts';

export interface StartedDeployment {
  main: ChildServer;
  wallet: ChildServer;
  stop(): Promise<void>;
}

/**
 * The tester's own test build: the main origin and its wallet harness, each in a process of its own on
 * free ports with a fresh data directory, the rate limit lifted and loopback targets allowed (the
 * documented test hooks) and,
 * for the planted-bug test, one guard inverted (PORTICO_TEST_INVERT_GUARD).
 */
export async function startDeployment(invertGuard?: string): Promise<StartedDeployment> {
  const main = await startChildServer({
    env: {
      // Runs against a target use the build's own OAuth server on loopback (the guard's test hook).
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      ...(invertGuard ? { PORTICO_TEST_INVERT_GUARD: invertGuard } : {}),
    },
  });
  try {
    // The wallet trusts the main origin's IACA and verifier CA, as it does when they run together.
    const wallet = await startWalletBeside(main.url);
    return {
      main,
      wallet,
      async stop() {
        await Promise.all([main.stop(), wallet.stop()]);
        for (const dir of [main.dataDir, wallet.dataDir]) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await main.stop();
    throw error;
  }
}
