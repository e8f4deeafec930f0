import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.ts';
import { createMainOrigin } from './http/main/compose.ts';
import { createSpiffeService } from './http/spiffe/app.ts';
import { createWalletService } from './http/wallet/app.ts';
import { invertGuard } from '../services/machines/test-switch.ts';

export interface RunningService {
  name: string;
  url: string;
  close(): Promise<void>;
}

export type ServiceName = 'main' | 'wallet' | 'spiffe';

/** `together`: the services started in this process (the wallet trusts the main origin's roots when beside it). */
type Starter = (config: Config, together: readonly ServiceName[]) => Promise<RunningService>;

async function startMain(config: Config): Promise<RunningService> {
  if (config.invertedGuard) {
    const { machine, guard } = config.invertedGuard;
    invertGuard(machine, guard);
    console.warn(`portico: TEST BUILD: guard ${machine}.${guard} is inverted (PORTICO_TEST_INVERT_GUARD)`);
  }
  const main = await createMainOrigin(config, { logger: config.logRequests });
  await main.app.listen({ host: config.host, port: config.port });
  return { name: 'main', url: config.baseUrl, close: () => main.close() };
}

async function startSpiffe(config: Config): Promise<RunningService> {
  const spiffe = await createSpiffeService(config);
  await spiffe.app.listen({ host: config.host, port: config.spiffePort });
  return { name: 'spiffe', url: config.showcaseBaseUrl, close: () => spiffe.close() };
}

/** A certificate kept in a JSON file of the shared DATA_DIR (written by the main origin at its start). */
function storedPem(file: string, key: string): string[] {
  if (!existsSync(file)) return [];
  const pem = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, { pem?: string } | undefined>)[key]?.pem;
  return pem ? [pem] : [];
}

/** The main origin's roots in a shared DATA_DIR: its issuer's IACA and its verifier's request-signing CA. */
function mainOriginRoots(config: Config): { mdocIacaRootsPem: string[]; verifierTrustAnchorsPem: string[] } {
  return {
    mdocIacaRootsPem: storedPem(join(config.dataDir, 'mdoc', 'pki.json'), 'iaca'),
    verifierTrustAnchorsPem: storedPem(join(config.dataDir, 'oid4vp', 'x509.json'), 'ca'),
  };
}

async function startWallet(config: Config, together: readonly ServiceName[]): Promise<RunningService> {
  // Beside the main origin (started first) the wallet also trusts its IACA root and verifier CA (decisions section 10).
  const wallet = await createWalletService(
    config,
    together.includes('main') ? { embeddedTrust: mainOriginRoots(config) } : {},
  );
  await wallet.app.listen({ host: config.host, port: config.walletPort });
  return { name: 'wallet', url: config.walletUrl, close: () => wallet.close() };
}

/** The services `npm start` runs, in start order. */
export const SERVICES: Record<ServiceName, Starter> = {
  main: startMain,
  wallet: startWallet,
  spiffe: startSpiffe,
};
