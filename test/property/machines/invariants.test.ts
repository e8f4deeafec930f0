import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type AnyStateMachine, type EventObject } from 'xstate';
import { authorizationCodeMachine, type CodeEvent } from '../../../machines/authorization-code.ts';
import { flowRunMachine, type FlowRunEvent } from '../../../machines/flow-run.ts';
import { refreshFamilyMachine, type RefreshEvent } from '../../../machines/refresh-family.ts';
import { interactionMachine, type InteractionEvent } from '../../../machines/interaction.ts';
import { singleUseMachine } from '../../../machines/single-use.ts';
import {
  presentationMachine,
  type PresentationEvent,
  type PresentationReason,
} from '../../../machines/presentation.ts';
import { setReceiverMachine } from '../../../machines/set-receiver.ts';
import { spiffeModeMachine, type SpiffeModeEvent } from '../../../machines/spiffe-mode.ts';
import { svidRotationMachine, type SvidRotationEvent } from '../../../machines/svid-rotation.ts';
import { walletExchangeMachine, type WalletExchangeEvent } from '../../../machines/wallet-exchange.ts';
import { invertedGuards } from '../../support/inverted-guards.ts';

/**
 * Issue 32: properties of the eight machines that had none (and the code and refresh family machines again), each from the rules its states implement, over
 * generated event sequences. Every property is held to fail when any one guard of its machine is
 * inverted (`machine.provide`), in the last test of this file:
 *   npx vitest run test/property/machines/invariants.test.ts -t "inverted guard"
 */
/** Every generated event carries its time, as the log's events do. */
type TimedEvent = { type: string; at: number } & Record<string, any>;
type Step = { before: string; after: string; event: TimedEvent; context: Record<string, unknown> };
type Invariant = (trace: Step[]) => void;

function traceOf(machine: AnyStateMachine, events: EventObject[]): Step[] {
  let [snapshot] = initialTransition(machine);
  return events.map((event) => {
    const before = JSON.stringify(snapshot.value);
    [snapshot] = transition(machine, snapshot, event);
    return { before, after: JSON.stringify(snapshot.value), event: event as TimedEvent, context: snapshot.context };
  });
}

const at = fc.integer({ min: 0, max: 400_000 });
const FINAL = (...states: string[]) => new Set(states.map((s) => JSON.stringify(s)));

const presentationEvents: fc.Arbitrary<PresentationEvent[]> = fc
  .array(
    fc.oneof(
      fc.record({
        type: fc.constant('presentation.request_fetched' as const),
        at,
        method: fc.constantFrom('get' as const, 'post' as const),
      }),
      fc.record(
        {
          type: fc.constant('presentation.response_received' as const),
          at,
          enc: fc.constant(null),
          origin: fc.constant('https://v.example'),
        },
        { requiredKeys: ['type', 'at', 'enc'] },
      ),
      fc.record({ type: fc.constant('presentation.verified' as const), at, presentations: fc.constant({}) }),
      fc.record({
        type: fc.constant('presentation.rejected' as const),
        at,
        reasons: fc.constant([] as PresentationReason[]),
      }),
      fc.record({ type: fc.constant('presentation.wallet_error' as const), at, error: fc.constant('access_denied') }),
      fc.record({ type: fc.constant('presentation.expired' as const), at }),
      fc.record({
        type: fc.constant('presentation.correlated' as const),
        at,
        stream: fc.constantFrom('wallet-exchange:a', 'wallet-exchange:b'),
      }),
    ),
    { maxLength: 10 },
  )
  .chain((events) => fc.tuple(fc.constant(events), fc.constantFrom('direct_post' as const, 'dc_api' as const)))
  .map(([events, mode]) => [
    {
      type: 'presentation.created' as const,
      at: 0,
      client_id: 'redirect_uri:https://v.example/cb',
      // The DC API channel (OpenID4VP 1.0 Appendix A) is answered with the browser's origin, the others without.
      response_mode: mode,
      request_uri_method: 'get' as const,
      nonce: 'n',
      state_hash: 's',
      dcql_query: {},
      expires_at: 300_000,
    } as PresentationEvent,
    ...events,
  ]);

/** decisions §9: a request is answered once, before it lapses; a verdict ends it; the first wallet exchange is kept. */
const presentationInvariant: Invariant = (trace) => {
  const finals = FINAL('verified', 'rejected', 'wallet_error', 'expired');
  for (const step of trace) {
    if (finals.has(step.before)) expect(step.after).toBe(step.before);
    if (step.after === '"answered"' && step.before !== '"answered"') {
      expect(step.event.at).toBeLessThan(300_000);
      const throughTheBrowser = trace[0].event.response_mode === 'dc_api';
      expect((step.event as { origin?: string }).origin !== undefined).toBe(throughTheBrowser);
    }
    if (step.after === '"wallet_error"' && step.before !== '"wallet_error"')
      expect(step.event.at).toBeLessThan(300_000);
    if (step.after === '"expired"' && step.before !== '"expired"')
      expect(step.event.at).toBeGreaterThanOrEqual(300_000);
  }
  // A by-reference request is fetched only with the method it was created for (get), while live.
  const fetches = trace.filter(
    (s) =>
      s.event.type === 'presentation.request_fetched' &&
      ['"created"', '"fetched"'].includes(s.before) &&
      s.event.method === 'get' &&
      s.event.at < 300_000,
  ).length;
  expect(trace.at(-1)!.context.fetches).toBe(fetches);
  // Correlation is a root transition, taken in any state: the first wallet exchange named is kept.
  const first = trace.find((s) => s.event.type === 'presentation.correlated');
  if (first) expect(trace.at(-1)!.context.walletExchange).toBe(first.event.stream);
};

const flowRunEvents = fc.array(
  fc.oneof(
    fc.record({
      type: fc.constant('run.started' as const),
      at,
      protocol: fc.constant('oauth2'),
      flow: fc.constant('f'),
      options: fc.constant({}),
    }),
    fc.record({
      type: fc.constant('run.exchange_recorded' as const),
      at,
      step: fc.constant('s'),
      request: fc.constant({ method: 'GET', url: 'https://x', headers: {} }),
      response: fc.constant({ status: 200, headers: {} }),
      duration_ms: fc.constant(1),
      annotations: fc.constant([] as string[]),
    }),
    fc.record({
      type: fc.constant('run.finished' as const),
      at,
      status: fc.constantFrom('succeeded' as const, 'failed' as const),
    }),
    fc.record({ type: fc.constant('run.interrupted' as const), at, reason: fc.constant('stopped') }),
  ),
  { maxLength: 12 },
);

/** A run counts the exchanges recorded while it runs, and ends as its finish says. */
const flowRunInvariant: Invariant = (trace) => {
  let running = false;
  let exchanges = 0;
  for (const step of trace) {
    if (step.before === '"running"' && step.event.type === 'run.exchange_recorded') exchanges += 1;
    if (step.before === '"running"' && step.event.type === 'run.finished')
      expect(step.after).toBe(JSON.stringify(step.event.status));
    if (FINAL('succeeded', 'failed', 'interrupted').has(step.before)) expect(step.after).toBe(step.before);
    running = running || step.after === '"running"';
  }
  if (running) expect(trace.at(-1)!.context.exchanges).toBe(exchanges);
};

const hopStep = fc.constantFrom(
  'offer',
  'metadata',
  'par',
  'token',
  'nonce',
  'credential',
  'deferred',
  'request_object',
  'response',
);
const walletEvents: fc.Arbitrary<WalletExchangeEvent[]> = fc
  .tuple(
    fc.constantFrom('issuance' as const, 'presentation' as const),
    fc.array(
      fc.oneof(
        fc.record({
          type: fc.constant('exchange.hop' as const),
          at,
          step: hopStep,
          method: fc.constant('GET'),
          url: fc.constant('https://i'),
          status: fc.constant(200),
        }),
        fc.record({ type: fc.constant('exchange.failed' as const), at, error: fc.constant('x') }),
        fc.record({
          type: fc.constant('exchange.correlated' as const),
          at,
          stream: fc.constantFrom('issuance:a', 'presentation:b'),
        }),
      ),
      { maxLength: 10 },
    ),
  )
  .map(([kind, events]) => [
    { type: 'exchange.started' as const, at: 0, kind, session: 's', source: 'https://i' } as WalletExchangeEvent,
    ...(events as WalletExchangeEvent[]),
  ]);

/** An exchange starts on its kind's branch, a token hop reaches `token`, a failure is final, each peer is kept once. */
const walletInvariant: Invariant = (trace) => {
  const kind = trace[0]!.event.kind as string;
  expect(trace[0]!.after).toBe(kind === 'presentation' ? '"started_presentation"' : '"started"');
  for (const step of trace.slice(1)) {
    if (step.before === '"failed"') expect(step.after).toBe('"failed"');
    if (
      kind === 'issuance' &&
      ['"started"', '"discovered"', '"authorized"'].includes(step.before) &&
      step.event.type === 'exchange.hop' &&
      step.event.step === 'token'
    )
      expect(step.after).toBe('"token"');
  }
  // Correlation is a root transition: a peer named after the exchange ended is still recorded.
  const named = trace.filter((s) => s.event.type === 'exchange.correlated');
  const expected = [...new Set(named.map((s) => s.event.stream))];
  expect((trace.at(-1)!.context.peers as string[] | undefined) ?? []).toEqual(expected);
};

const setEvents = fc.array(
  fc.record({
    type: fc.constant('sets.acknowledged' as const),
    at,
    jtis: fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 3 }),
  }),
  { maxLength: 8 },
);
/** RFC 8936 §2.4: the receiver's acknowledged set is the union of every acknowledgement, each jti once. */
const setInvariant: Invariant = (trace) => {
  const union = [...new Set(trace.flatMap((s) => s.event.jtis as string[]))].sort();
  expect([...((trace.at(-1)?.context.acknowledged as string[]) ?? [])].sort()).toEqual(union);
};

const spiffeEvents: fc.Arbitrary<SpiffeModeEvent[]> = fc.array(
  fc.oneof(
    fc.record({ type: fc.constant('mode.connect_requested' as const), at, socketPath: fc.constant('/tmp/agent.sock') }),
    fc.record({ type: fc.constant('mode.connected' as const), at }),
    fc.record({ type: fc.constant('mode.connect_failed' as const), at, reason: fc.constant('refused') }),
    fc.record({ type: fc.constant('mode.agent_lost' as const), at, reason: fc.constant('gone') }),
  ),
  { maxLength: 12 },
);
/** Service spec §3 workload modes: full only through a connection, failures counted until one succeeds. */
const spiffeInvariant: Invariant = (trace) => {
  for (const step of trace) {
    if (step.after === '"full"' && step.before !== '"full"') expect(step.before).toBe('"connecting"');
    if (step.after === '"full"') expect(step.context.failures).toBe(0);
  }
};

const svidEvents: fc.Arbitrary<SvidRotationEvent[]> = fc.array(
  fc.tuple(fc.boolean(), fc.constantFrom('1', '2', '3'), fc.constantFrom('1', '2', '3'), at).map(
    ([rotate, serial, previousSerial, t]) =>
      (rotate
        ? {
            type: 'svid.rotated',
            at: t,
            previousSerial,
            spiffeId: 'spiffe://x/w',
            serial,
            notBefore: 0,
            notAfter: 1,
            fingerprint: serial,
          }
        : {
            type: 'svid.observed',
            at: t,
            spiffeId: 'spiffe://x/w',
            serial,
            notBefore: 0,
            notAfter: 1,
            fingerprint: serial,
          }) as SvidRotationEvent,
  ),
  { maxLength: 10 },
);
/** A rotation names the serial it replaces and brings another: the count is the accepted rotations. */
const svidInvariant: Invariant = (trace) => {
  let serial: string | undefined;
  let rotations = 0;
  for (const step of trace) {
    const e = step.event as SvidRotationEvent;
    if (serial === undefined && e.type === 'svid.observed') serial = e.serial;
    else if (serial !== undefined && e.type === 'svid.rotated' && e.previousSerial === serial && e.serial !== serial) {
      serial = e.serial;
      rotations += 1;
    }
  }
  expect(trace.at(-1)?.context.rotations ?? 0).toBe(rotations);
  if (serial !== undefined) expect(trace.at(-1)!.context.serial).toBe(serial);
};

const interactionEvents: fc.Arbitrary<InteractionEvent[]> = fc
  .array(
    fc.oneof(
      fc.record({ type: fc.constant('interaction.authenticated' as const), at, sub: fc.constant('alice') }),
      fc.record({ type: fc.constant('interaction.consented' as const), at, codeHash: fc.constant('h') }),
      fc.record({ type: fc.constant('interaction.declined' as const), at }),
    ),
    { maxLength: 8 },
  )
  .map((events) => [
    {
      type: 'interaction.started' as const,
      at: 0,
      issuer: 'https://op',
      clientId: 'demo-app',
      redirectUri: 'https://c/cb',
      responseMode: 'query' as const,
      scope: 'openid',
      expiresAt: 200_000,
    } as InteractionEvent,
    ...events,
  ]);
/** Login, then consent or decline, each only while the request lives (600 s in the service, 200 s here). */
const interactionInvariant: Invariant = (trace) => {
  for (const step of trace.slice(1)) {
    if (step.after !== step.before) expect(step.event.at).toBeLessThan(200_000);
    const moved = step.event.at < 200_000;
    if (step.before === '"login"' && step.event.type === 'interaction.authenticated')
      expect(step.after).toBe(moved ? '"consent"' : '"login"');
    if (step.before === '"consent"' && step.event.type === 'interaction.consented')
      expect(step.after).toBe(moved ? '"completed"' : '"consent"');
  }
};

const singleUseEvents = fc.array(
  fc.record({ type: fc.constant('value.used' as const), at, purpose: fc.constantFrom('dpop', 'client-assertion') }),
  { maxLength: 5 },
);
/** A value is used once: the first use is kept, every later one changes nothing. */
const singleUseInvariant: Invariant = (trace) => {
  if (trace.length === 0) return;
  expect(trace.at(-1)!.after).toBe('"used"');
  expect(trace.at(-1)!.context.usedAt).toBe(trace[0]!.event.at);
};

const codeEvents: fc.Arbitrary<CodeEvent[]> = fc
  .array(
    fc.oneof(
      fc.record({ type: fc.constant('code.redeemed' as const), at, accessJti: fc.constant('j') }),
      fc.record({ type: fc.constant('code.replayed' as const), at, revokesAccess: fc.constant(['j'] as string[]) }),
    ),
    { maxLength: 6 },
  )
  .map((events) => [
    {
      type: 'code.issued' as const,
      at: 0,
      issuer: 'https://op',
      clientId: 'demo-app',
      redirectUri: 'https://c/cb',
      scope: 'openid',
      sub: 'alice',
      authTime: 0,
      expiresAt: 60_000,
    } as CodeEvent,
    ...events,
  ]);
/** RFC 6749 §4.1.2: a code is redeemed once, before it expires; a second use is a replay, which ends it. */
const codeInvariant: Invariant = (trace) => {
  for (const step of trace.slice(1)) {
    if (step.before === '"issued"' && step.event.type === 'code.redeemed')
      expect(step.after).toBe(step.event.at < 60_000 ? '"redeemed"' : '"issued"');
    if (step.after === '"replayed"' && step.before !== '"replayed"') expect(step.before).toBe('"redeemed"');
  }
};

const hashes = fc.constantFrom('t0', 't1', 't2', 't3');
const refreshEvents: fc.Arbitrary<RefreshEvent[]> = fc
  .array(
    fc.oneof(
      fc.record({
        type: fc.constant('refresh.rotated' as const),
        at,
        presentedHash: hashes,
        tokenHash: hashes,
        accessJti: fc.constant('j'),
      }),
      fc.record({
        type: fc.constant('refresh.reused' as const),
        at,
        presentedHash: hashes,
        revokesAccess: fc.constant([] as string[]),
      }),
    ),
    { maxLength: 8 },
  )
  .map((events) => [
    {
      type: 'refresh.issued' as const,
      at: 0,
      tokenHash: 't0',
      accessJti: 'j0',
      issuer: 'https://op',
      clientId: 'demo-app',
      sub: 'alice',
      scope: 'openid offline_access',
      authTime: 0,
      expiresAt: 200_000,
    } as RefreshEvent,
    ...events,
  ]);
/** A reference model of RFC 9700 §4.14.2 rotation: the current token rotates (until the family expires); a retired one revokes the family. */
const refreshInvariant: Invariant = (trace) => {
  let current = 't0';
  const retired: string[] = [];
  let revoked = false;
  for (const step of trace.slice(1)) {
    if (revoked) break;
    const e = step.event;
    if (e.type === 'refresh.rotated' && e.presentedHash === current && e.at < 200_000) {
      retired.push(current);
      current = e.tokenHash;
    } else if (e.type === 'refresh.reused' && retired.includes(e.presentedHash)) revoked = true;
    expect(step.after, JSON.stringify(e)).toBe(revoked ? '"revoked"' : '"active"');
  }
  if (!revoked) expect(trace.at(-1)!.context.currentHash).toBe(current);
};

const CASES: Array<[string, AnyStateMachine, fc.Arbitrary<EventObject[]>, Invariant]> = [
  ['presentation', presentationMachine, presentationEvents, presentationInvariant],
  ['flowRun', flowRunMachine, flowRunEvents, flowRunInvariant],
  ['wallet-exchange', walletExchangeMachine, walletEvents, walletInvariant],
  ['setReceiver', setReceiverMachine, setEvents, setInvariant],
  ['spiffeMode', spiffeModeMachine, spiffeEvents, spiffeInvariant],
  ['svidRotation', svidRotationMachine, svidEvents, svidInvariant],
  ['interaction', interactionMachine, interactionEvents, interactionInvariant],
  ['singleUse', singleUseMachine, singleUseEvents, singleUseInvariant],
  ['authorizationCode', authorizationCodeMachine, codeEvents, codeInvariant],
  ['refreshFamily', refreshFamilyMachine, refreshEvents, refreshInvariant],
];

const property = (machine: AnyStateMachine, events: fc.Arbitrary<EventObject[]>, invariant: Invariant) =>
  fc.property(events, (sequence) => {
    invariant(traceOf(machine, sequence));
  });

describe.each(CASES)('the %s machine', (_name, machine, events, invariant) => {
  it('keeps its rules over generated event sequences', () => {
    fc.assert(property(machine, events, invariant), { numRuns: 300 });
  });

  it('has a property that fails when any one inverted guard is provided', () => {
    for (const [name, mutated] of invertedGuards(machine)) {
      const outcome = fc.check(property(mutated, events, invariant), { numRuns: 300, seed: 7 });
      expect(outcome.failed, `${machine.id}: inverting ${name} went unnoticed`).toBe(true);
    }
  });
});
