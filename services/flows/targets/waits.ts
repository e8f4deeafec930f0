import { flowRunStates, type flowRunMachine } from '../../../machines/flow-run.ts';
import { UNMADE_HOLDER_MS, type ClientPlaces, type PlaceRule } from '../../places/client-places.ts';
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
  /** A client's places: each targeted run under way holds one until it ends, or its instance is gone. */
  private readonly runPlaces: PlaceRule;

  constructor(
    private readonly actors: ActorRuntime<typeof flowRunMachine>,
    private readonly clock: Clock,
    private readonly stepper: RunStepper,
    readonly callbackUrl: string,
    private readonly redact: (value: unknown) => unknown,
    private readonly places: ClientPlaces,
    /** Ends a run whose instance is gone as interrupted; answers whether it did. */
    settleAbandoned: (runId: string) => Promise<boolean>,
  ) {
    this.runPlaces = {
      kind: 'targeted-runs',
      limit: TARGETED_RUNS_PER_CLIENT,
      // Before places were kept, each process counted its own runs in memory: none to count in.
      heldBefore: async () => [],
      lapsed: async (held, now) => {
        const gone = [];
        for (const { holder, at } of held) {
          const { version, snapshot } = await actors.get(holder);
          if (version === 0 ? now - at >= UNMADE_HOLDER_MS : !flowRunStates.underWay(snapshot)) gone.push(holder);
          else if (version > 0 && (await settleAbandoned(holder))) gone.push(holder);
        }
        return gone;
      },
    };
  }

  /**
   * Takes one of the client's places for targeted run `runId`, or refuses a third while two are under
   * way (429). Counted and taken in one turn of the log (services/places/client-places.ts), so
   * concurrent requests on any instance cannot both pass; `end` gives the place back when the run ends
   * or fails to start, and a run whose instance stopped gives it back when it is met.
   */
  private async reserve(client: string, runId: string): Promise<void> {
    if (!(await this.places.take(this.runPlaces, client, runId)))
      throw oauthError('rate_limited', `At most ${TARGETED_RUNS_PER_CLIENT} runs against a target at once per client`);
  }

  /** `reserve`, then the target's pre-flight check (`vet`); a refused target gives the place back. */
  async admit(client: string, runId: string, vet: () => Promise<void>): Promise<void> {
    await this.reserve(client, runId);
    try {
      await vet();
    } catch (error) {
      await this.end(client, runId);
      throw error;
    }
  }

  async end(client: string, runId: string): Promise<void> {
    await this.places.release(this.runPlaces, client, runId);
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
