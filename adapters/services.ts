import type { Config } from './config.ts';
import { createMainOrigin } from './http/main/compose.ts';

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

/**
 * The services `npm start` runs, in start order. The wallet harness and the workload identity service
 * register here when they exist.
 */
export const SERVICES: Partial<Record<ServiceName, Starter>> & Record<'main', Starter> = {
  main: startMain,
};
