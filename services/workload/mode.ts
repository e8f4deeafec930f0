import { spiffeModeMachine, spiffeModeStates } from '../../machines/spiffe-mode.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';
import type { WorkloadApiConnector, WorkloadApiSession } from './ports.ts';
import type { SpiffeSettings } from './settings.ts';

export type { WorkloadApiConnector, WorkloadApiSession } from './ports.ts';

/**
 * The service's mode actor (`spiffe-mode:service`): demo unless enabled and the agent answers; full
 * while the Workload API session lives; back to demo (with the machine's backoff before the next
 * attempt) when the X.509 stream ends. The open session itself is process-local: it is a connection,
 * rebuilt by the next attempt after a restart.
 */
export class SpiffeMode {
  private readonly actors: ActorRuntime<typeof spiffeModeMachine>;
  private live?: WorkloadApiSession;
  private attempting?: Promise<void>;
  private closed = false;
  private readonly connectedListeners = new Set<(session: WorkloadApiSession) => unknown>();

  constructor(
    log: EventLog,
    private readonly settings: SpiffeSettings,
    private readonly clock: Clock,
    private readonly connector?: WorkloadApiConnector,
  ) {
    this.actors = ActorRuntime.of(log, spiffeModeMachine, 'spiffe-mode');
  }

  async current() {
    const { snapshot } = await this.actors.get('service');
    return {
      mode: spiffeModeStates.full(snapshot) ? ('full' as const) : ('demo' as const),
      state: snapshot.value as string,
      context: snapshot.context,
    };
  }

  /** The Workload API session while in full mode. */
  session(): WorkloadApiSession | undefined {
    return this.live;
  }

  /** Called (and awaited) each time full mode begins, with the new session. */
  onConnected(listener: (session: WorkloadApiSession) => unknown): () => void {
    this.connectedListeners.add(listener);
    return () => this.connectedListeners.delete(listener);
  }

  /**
   * After a restart the log may say `connecting` or `full` although this process holds no session:
   * record what happened to that connection so that the next attempt can start.
   */
  async recover(reason = 'the service restarted'): Promise<void> {
    const { state } = await this.current();
    if (this.live) return;
    if (state === 'connecting')
      await this.actors.execute('service', { type: 'mode.connect_failed', at: this.clock.now(), reason });
    else if (state === 'full')
      await this.actors.execute('service', { type: 'mode.agent_lost', at: this.clock.now(), reason });
  }

  /** One connection attempt, when full mode is enabled and a retry is due. Concurrent calls share one attempt. */
  attempt(): Promise<void> {
    if (!this.attempting) {
      this.attempting = this.tryOnce().finally(() => {
        this.attempting = undefined;
      });
    }
    return this.attempting;
  }

  private async tryOnce(): Promise<void> {
    if (!this.settings.enabled || this.closed) return;
    const { state, context } = await this.current();
    if (state !== 'demo' || (context.retryAt !== undefined && this.clock.now() < context.retryAt)) return;
    await this.actors.execute('service', {
      type: 'mode.connect_requested',
      at: this.clock.now(),
      socketPath: this.settings.socketPath,
    });
    if (!this.connector) {
      await this.actors.execute('service', {
        type: 'mode.connect_failed',
        at: this.clock.now(),
        reason: 'no Workload API client in this build',
      });
      return;
    }
    let session: WorkloadApiSession;
    try {
      session = await this.connector.connect(this.settings.socketPath);
    } catch (error) {
      if (this.closed) return;
      await this.actors.execute('service', {
        type: 'mode.connect_failed',
        at: this.clock.now(),
        reason: (error as Error).message.slice(0, 200),
      });
      return;
    }
    if (this.closed) {
      session.close();
      return;
    }
    const spiffeId = session.x509().svids[0]?.spiffeId;
    const outcome = await this.actors.execute('service', {
      type: 'mode.connected',
      at: this.clock.now(),
      ...(spiffeId ? { spiffeId } : {}),
    });
    if (!outcome.accepted) {
      session.close();
      return;
    }
    this.live = session;
    void session.ended.then((reason) => this.lost(session, reason));
    for (const listener of this.connectedListeners) {
      try {
        await listener(session);
      } catch {
        // a listener's failure (e.g. recording the first SVID) does not undo the connection
      }
    }
  }

  private async lost(session: WorkloadApiSession, reason: string): Promise<void> {
    if (this.live !== session) return;
    this.live = undefined;
    session.close();
    if (this.closed) return;
    await this.actors.execute('service', {
      type: 'mode.agent_lost',
      at: this.clock.now(),
      reason: reason.slice(0, 200),
    });
  }

  /** Closes the session without recording a loss (the service is shutting down). */
  async close(): Promise<void> {
    this.closed = true;
    await this.attempting?.catch(() => undefined);
    this.live?.close();
    this.live = undefined;
  }
}
