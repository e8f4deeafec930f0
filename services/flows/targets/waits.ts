import type { flowRunMachine } from '../../../machines/flow-run.ts';
import type { ActorRuntime } from '../../actors/runtime.ts';
import type { Clock } from '../../clock.ts';
import { oauthError } from '../../errors.ts';
import { RunEnded, type RunStepper } from '../stepping.ts';
import { USER_WAIT_MS, UserReturns } from './returns.ts';
import type { HttpTransport } from '../capture.ts';
import type { FlowRunners } from '../registry.ts';

/** What runs against a user's own server need: the guarded transport, the pre-flight check, their runners. */
export interface TargetDeps {
  transport: HttpTransport;
  /** Refuses a destination the outbound guard would refuse, before the run starts (nothing is sent). */
  admit(url: string): Promise<void>;
  runners: FlowRunners;
}

/** At most this many targeted runs at once per client address. */
const TARGETED_RUNS_PER_CLIENT = 2;

/**
 * What runs against a user's own server need beside the runner: the per-client limit, and the wait
 * (`awaiting_user`) while the person signs in at the target and comes back to `callbackUrl`.
 */
export class TargetWaits {
  private readonly returns = new UserReturns();
  private readonly underway = new Map<string, number>();

  constructor(
    private readonly actors: ActorRuntime<typeof flowRunMachine>,
    private readonly clock: Clock,
    private readonly stepper: RunStepper,
    readonly callbackUrl: string,
    private readonly redact: (value: unknown) => unknown,
  ) {}

  /**
   * Takes one of the client's places for a targeted run, or refuses a third while two are under way
   * (429). Checked and taken in one synchronous turn, so concurrent requests cannot both pass; the
   * place is given back by `end`, when the run ends or fails to start.
   */
  reserve(client: string): void {
    const underway = this.underway.get(client) ?? 0;
    if (underway >= TARGETED_RUNS_PER_CLIENT)
      throw oauthError('rate_limited', `At most ${TARGETED_RUNS_PER_CLIENT} runs against a target at once per client`);
    this.underway.set(client, underway + 1);
  }

  end(client: string): void {
    const left = (this.underway.get(client) ?? 1) - 1;
    if (left > 0) this.underway.set(client, left);
    else this.underway.delete(client);
  }

  /** The run waits in `awaiting_user` until the person comes back with `state`, or 10 minutes pass. */
  async awaitUser(id: string, authorizationUrl: string, state: string): Promise<URLSearchParams> {
    await this.actors.execute(id, {
      type: 'run.awaiting_user',
      at: this.clock.now(),
      authorization_url: this.redact(authorizationUrl) as string,
    });
    const back = this.returns.wait(id, state, this.clock.now());
    this.stepper.stopped(id);
    try {
      const params = await back;
      await this.actors.execute(id, { type: 'run.user_returned', at: this.clock.now() });
      return params;
    } catch (error) {
      await this.actors.execute(id, { type: 'run.expired', at: this.clock.now() });
      throw error;
    }
  }

  userReturned(params: URLSearchParams): string {
    return this.returns.deliver(params);
  }

  /** Ends the waits of this process older than 10 minutes; answers how many. */
  expireIdle(): number {
    return this.returns.fail(new RunEnded('expire'), { before: this.clock.now() - USER_WAIT_MS }).length;
  }

  /** A run read in `awaiting_user` past its 10 minutes is ended first; answers whether it was. */
  async expireIfLapsed(id: string, since: number): Promise<boolean> {
    if (this.clock.now() - since < USER_WAIT_MS) return false;
    if (this.returns.holds(id)) {
      const stopped = this.stepper.nextStop(id);
      this.returns.fail(new RunEnded('expire'), { runId: id });
      await stopped;
    } else await this.actors.execute(id, { type: 'run.expired', at: this.clock.now() });
    return true;
  }
}
