import type { Config } from './config.ts';
import { createMainOrigin } from './http/main/compose.ts';
import { createSpiffeService } from './http/spiffe/app.ts';

export interface RunningService {
  name: string;
  url: string;
  close(): Promise<void>;
}

export type ServiceName = 'main' | 'wallet' | 'spiffe';

type Starter = (config: Config) => Promise<RunningService>;

async function startMain(config: Config): Promise<RunningService> {
  const main = await createMainOrigin(config, { logger: config.env.LOG_LEVEL ? true : false });
  await main.app.listen({ host: config.host, port: config.port });
  return { name: 'main', url: config.baseUrl, close: () => main.close() };
}

async function startSpiffe(config: Config): Promise<RunningService> {
  const spiffe = await createSpiffeService(config);
  await spiffe.app.listen({ host: config.host, port: config.spiffePort });
  return { name: 'spiffe', url: config.showcaseBaseUrl, close: () => spiffe.close() };
}

/** The services `npm start` runs, in start order. The wallet harness registers here when it exists. */
export const SERVICES: Partial<Record<ServiceName, Starter>> & Record<'main', Starter> = {
  main: startMain,
  spiffe: startSpiffe,
};
