import fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { methodAllowed } from '../../../machines/presentation.ts';
import { presentationMachine, type PresentationEvent } from '../../../machines/presentation.ts';

// Issue 16: properties of the presentation request lifecycle, over generated event sequences.
const EXPIRES = 300_000;
const at = fc.integer({ min: 0, max: 400_000 });
const event: fc.Arbitrary<PresentationEvent> = fc.oneof(
  fc
    .tuple(at, fc.constantFrom('get' as const, 'post' as const))
    .map(([t, method]) => ({ type: 'presentation.request_fetched' as const, at: t, method })),
  fc
    .tuple(at, fc.constantFrom(null, 'A128GCM'))
    .map(([t, enc]) => ({ type: 'presentation.response_received' as const, at: t, enc })),
  at.map((t) => ({ type: 'presentation.verified' as const, at: t, presentations: {} })),
  at.map((t) => ({ type: 'presentation.rejected' as const, at: t, reasons: [{ check: 'dcql', reason: 'r' }] })),
  at.map((t) => ({ type: 'presentation.wallet_error' as const, at: t, error: 'access_denied' })),
  at.map((t) => ({ type: 'presentation.expired' as const, at: t })),
);

function run(method: 'get' | 'post' | undefined, events: PresentationEvent[]) {
  let [snapshot] = initialTransition(presentationMachine);
  [snapshot] = transition(presentationMachine, snapshot, {
    type: 'presentation.created',
    at: 0,
    client_id: 'x509_hash:abc',
    client_id_prefix: 'x509_hash',
    response_mode: 'direct_post',
    ...(method ? { request_uri_method: method } : {}),
    nonce: 'n',
    state_hash: 's',
    dcql_query: {},
    expires_at: EXPIRES,
  });
  const trace: Array<{ event: PresentationEvent; before: string; after: string }> = [];
  for (const e of events) {
    const before = String(snapshot.value);
    [snapshot] = transition(presentationMachine, snapshot, e);
    trace.push({ event: e, before, after: String(snapshot.value) });
  }
  return trace;
}

const FINAL = new Set(['verified', 'rejected', 'wallet_error', 'expired']);
const methods = fc.constantFrom('get' as const, 'post' as const, undefined);

describe('presentation machine properties', () => {
  it('a request is answered at most once, only before it lapses, and a verdict follows only an answer', () => {
    fc.assert(
      fc.property(methods, fc.array(event, { maxLength: 20 }), (method, events) => {
        const trace = run(method, events);
        const answers = trace.filter((t) => t.after === 'answered' && t.before !== 'answered');
        expect(answers.length).toBeLessThanOrEqual(1);
        for (const t of answers) expect(t.event.at).toBeLessThan(EXPIRES);
        for (const t of trace)
          if ((t.after === 'verified' || t.after === 'rejected') && t.before !== t.after)
            expect(t.before).toBe('answered');
      }),
      { numRuns: 2000 },
    );
  });

  it('final states never move; expiry happens only after the deadline and only before an answer', () => {
    fc.assert(
      fc.property(methods, fc.array(event, { maxLength: 20 }), (method, events) => {
        for (const t of run(method, events)) {
          if (FINAL.has(t.before)) expect(t.after).toBe(t.before);
          if (t.after === 'expired' && t.before !== 'expired') {
            expect(t.event.at).toBeGreaterThanOrEqual(EXPIRES);
            expect(['created', 'fetched']).toContain(t.before);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('request objects are fetched only by a method the request allows (a post request by GET too), never by a by-value request', () => {
    fc.assert(
      fc.property(methods, fc.array(event, { maxLength: 20 }), (method, events) => {
        for (const t of run(method, events)) {
          if (t.event.type === 'presentation.request_fetched' && t.after === 'fetched' && t.before !== 'fetched') {
            expect(method).toBeDefined();
            expect(methodAllowed(method!, t.event.method)).toBe(true);
            if (method === 'get') expect(t.event.method).toBe('get');
            expect(t.event.at).toBeLessThan(EXPIRES);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
