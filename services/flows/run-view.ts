import { initialTransition, transition } from 'xstate';
import {
  flowRunMachine,
  recordedExchangeOf,
  type NextRequest,
  type RecordedExchange,
} from '../../machines/flow-run.ts';
import { toMachineEvent } from '../actors/fold.ts';
import type { FlowStep } from '../content/catalog.ts';
import type { StoredEvent } from '../event-log.ts';
import type { DecodedToken } from './capture.ts';
import type { CheckResult } from './targets/checks.ts';

type RunStatus =
  'running' | 'paused' | 'awaiting_user' | 'succeeded' | 'failed' | 'interrupted' | 'cancelled' | 'expired';

export interface RunView {
  run_id: string;
  protocol: string;
  flow: string;
  status: RunStatus;
  /** Step mode: a paused run's next request (secrets redacted), its step's explanation. */
  mode?: 'step';
  next_request?: NextRequest;
  explanation?: string;
  /** A run against the user's own server: its issuer and client, and the verdict of every named check. */
  target?: { issuer: string; client_id: string } | { base_url: string };
  checks?: CheckResult[];
  /** `awaiting_user`: where the person signs in at the target; they come back to `redirect_uri`. */
  authorization_url?: string;
  redirect_uri?: string;
  started_at: string;
  finished_at?: string;
  error?: string;
  steps: FlowStep[];
  exchanges: RecordedExchange[];
  tokens: DecodedToken[];
  /** The run machine's position after each event of the stream, in order (what a replay shows). */
  machine: Array<{ sequence: number; event: string; state: string }>;
}

/** Folds the stream through the run machine, one event at a time, noting where it stands after each. */
function machinePositions(events: readonly StoredEvent[]): RunView['machine'] {
  let [snapshot] = initialTransition(flowRunMachine);
  return events.map((e) => {
    [snapshot] = transition(flowRunMachine, snapshot, toMachineEvent(e) as never);
    return { sequence: e.sequence, event: e.type, state: String(snapshot.value) };
  });
}

/** The events after which a run is over. */
const FINISHING = new Set(['run.finished', 'run.interrupted', 'run.cancelled', 'run.expired']);

const iso = (ms?: number) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The target a run was started against, as its start event keeps it (the secret never). */
function targetNamed(started: Record<string, unknown>): Pick<RunView, 'target'> {
  const target = (
    started.options as { target?: { issuer?: unknown; client_id?: unknown; base_url?: unknown } } | undefined
  )?.target;
  if (target && typeof target.base_url === 'string') return { target: { base_url: target.base_url } };
  return target && typeof target.issuer === 'string' && typeof target.client_id === 'string'
    ? { target: { issuer: target.issuer, client_id: target.client_id } }
    : {};
}

/** A run as its stream records it (secrets redacted): status from the run machine, a pause's next request. */
export function runView(id: string, events: StoredEvent[], steps: FlowStep[]): RunView {
  const started = events[0].data as { protocol: string; flow: string; mode?: 'step' };
  const finished = [...events].reverse().find((e) => FINISHING.has(e.type));
  const exchanges = events.filter((e) => e.type === 'run.exchange_recorded').map(recordedExchangeOf);
  const machine = machinePositions(events);
  const checks = events
    .filter((e) => e.type === 'run.check_recorded')
    .map(
      ({ data }) => ({ check: data.check, verdict: data.verdict, rule: data.rule, detail: data.detail }) as CheckResult,
    );
  const status = (machine.at(-1)?.state ?? 'running') as RunStatus;
  const pause = status === 'paused' ? [...events].reverse().find((e) => e.type === 'run.paused') : undefined;
  const waiting =
    status === 'awaiting_user' ? [...events].reverse().find((e) => e.type === 'run.awaiting_user') : undefined;
  return {
    run_id: id,
    protocol: started.protocol,
    flow: started.flow,
    status,
    ...(started.mode ? { mode: started.mode } : {}),
    ...(pause
      ? {
          next_request: pause.data.next_request as NextRequest,
          ...(pause.data.explanation ? { explanation: String(pause.data.explanation) } : {}),
        }
      : {}),
    started_at: iso(events[0].at)!,
    ...(finished ? { finished_at: iso(finished.at) } : {}),
    ...(finished?.data.error
      ? { error: String(finished.data.error) }
      : finished?.data.reason
        ? { error: String(finished.data.reason) }
        : {}),
    ...targetNamed(events[0].data),
    ...(waiting ? { authorization_url: String(waiting.data.authorization_url) } : {}),
    ...(checks.length ? { checks } : {}),
    steps,
    exchanges,
    tokens: exchanges.flatMap((x) => (x.tokens ?? []).map((t) => ({ ...t, step: x.step }))),
    machine,
  };
}
