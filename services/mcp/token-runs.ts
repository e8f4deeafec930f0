import { tokenRunsMachine, type TokenRun } from '../../machines/token-runs.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';
import type { FlowRuns } from '../flows/runs.ts';
import type { McpCaller, UserToolDeps } from './user-tools.ts';

/** The flow runs each `/mcp/user` access token started (`token-runs:<jti>` streams): `my_runs`. */
export class TokenRuns implements Pick<UserToolDeps, 'recordRun' | 'runsOf'> {
  private readonly runs: ActorRuntime<typeof tokenRunsMachine>;

  constructor(
    log: EventLog,
    private readonly flowRuns: FlowRuns,
    private readonly clock: Clock,
  ) {
    this.runs = ActorRuntime.of(log, tokenRunsMachine, 'token-runs');
  }

  async recordRun(caller: McpCaller, run: Omit<TokenRun, 'at'>): Promise<void> {
    await this.runs.execute(caller.jti, {
      type: 'token_run.started',
      at: this.clock.now(),
      ...run,
      sub: caller.sub,
      clientId: caller.clientId,
    });
  }

  async runsOf(caller: McpCaller): Promise<Array<TokenRun & { status?: string }>> {
    const { snapshot } = await this.runs.get(caller.jti);
    return Promise.all(
      snapshot.context.runs.map(async (run) => ({ ...run, status: (await this.flowRuns.view(run.runId))?.status })),
    );
  }
}
