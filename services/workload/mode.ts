import { spiffeModeMachine } from '../../machines/spiffe-mode.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';
import type { SpiffeSettings } from './settings.ts';

/** Something that can reach the Workload API agent (a gRPC client over the unix socket). */
export interface WorkloadApiConnector {
  connect(socketPath: string): Promise<{ spiffeId?: string }>;
}

/** The service's mode actor (`spiffe-mode:service`): demo unless enabled and the agent answers. */
export class SpiffeMode {
  private readonly actors: ActorRuntime<typeof spiffeModeMachine>;

  constructor(
    log: EventLog,
    private readonly settings: SpiffeSettings,
    private readonly clock: Clock,
    private readonly connector?: WorkloadApiConnector,
  ) {
    this.actors = new ActorRuntime(log, spiffeModeMachine, 'spiffe-mode');
  }

  async current() {
    const { snapshot } = await this.actors.get('service');
    return { mode: snapshot.value === 'full' ? 'full' as const : 'demo' as const, state: snapshot.value as string, context: snapshot.context };
  }

  /** One connection attempt, when full mode is enabled and a retry is due. */
  async attempt(): Promise<void> {
    if (!this.settings.enabled) return;
    const { state, context } = await this.current();
    if (state !== 'demo' || (context.retryAt !== undefined && this.clock.now() < context.retryAt)) return;
    await this.actors.execute('service', { type: 'mode.connect_requested', at: this.clock.now(), socketPath: this.settings.socketPath });
    if (!this.connector) {
      await this.actors.execute('service', { type: 'mode.connect_failed', at: this.clock.now(), reason: 'no Workload API client in this build' });
      return;
    }
    try {
      const { spiffeId } = await this.connector.connect(this.settings.socketPath);
      await this.actors.execute('service', { type: 'mode.connected', at: this.clock.now(), ...(spiffeId ? { spiffeId } : {}) });
    } catch (error) {
      await this.actors.execute('service', { type: 'mode.connect_failed', at: this.clock.now(), reason: (error as Error).message.slice(0, 200) });
    }
  }
}
