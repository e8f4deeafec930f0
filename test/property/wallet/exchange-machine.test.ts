import fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { walletExchangeMachine, type HopStep, type WalletExchangeEvent } from '../../../machines/wallet-exchange.ts';

// Issue 18/19: properties of the wallet's exchange machine over generated event sequences.
const STEPS: HopStep[] = [
  'offer',
  'metadata',
  'as_metadata',
  'challenge',
  'par',
  'authorize',
  'token',
  'nonce',
  'credential',
  'deferred',
  'notification',
  'issuer_offer',
  'jwks',
  'request_object',
  'response',
  'resource',
];
const event: fc.Arbitrary<WalletExchangeEvent> = fc.oneof(
  fc
    .constantFrom(...STEPS)
    .map((step) => ({ type: 'exchange.hop' as const, at: 1, step, method: 'GET', url: 'https://x/y', status: 200 })),
  fc.constant({
    type: 'exchange.credential_stored' as const,
    at: 1,
    credential_id: 'c',
    format: 'dc+sd-jwt',
    batch_secondary: false,
  }),
  fc.constant({
    type: 'exchange.presented' as const,
    at: 1,
    verifier: 'https://v/r',
    upstream_status: 200,
    credential_ids: ['c'] as string[],
  }),
  fc.constant({ type: 'exchange.failed' as const, at: 1, error: 'upstream_error' }),
);

function run(kind: 'issuance' | 'presentation', events: WalletExchangeEvent[]) {
  let [snapshot] = initialTransition(walletExchangeMachine);
  [snapshot] = transition(walletExchangeMachine, snapshot, {
    type: 'exchange.started',
    at: 0,
    kind,
    session: 'sha256:x',
    source: 'https://i',
  });
  const trace: Array<{ event: WalletExchangeEvent; before: string; after: string }> = [];
  for (const e of events) {
    const before = String(snapshot.value);
    [snapshot] = transition(walletExchangeMachine, snapshot, e);
    trace.push({ event: e, before, after: String(snapshot.value) });
  }
  return trace;
}

const ORDER = ['started', 'discovered', 'authorized', 'token', 'nonce', 'credential', 'deferred', 'stored', 'notified'];

describe('wallet exchange machine properties', () => {
  it('issuance only moves forward along discovered -> ... -> notified; final states never move', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        for (const t of run('issuance', events)) {
          if (['notified', 'failed', 'presented', 'resource_read'].includes(t.before)) expect(t.after).toBe(t.before);
          if (t.after === 'resource_read' && t.before !== 'resource_read') expect(t.before).toBe('token');
          if (t.after !== 'failed' && ORDER.includes(t.before) && ORDER.includes(t.after))
            expect(ORDER.indexOf(t.after)).toBeGreaterThanOrEqual(ORDER.indexOf(t.before));
          if (t.after === 'notified' && t.before !== 'notified') expect(t.before).toBe('stored');
          if (t.after === 'stored' && t.before !== 'stored')
            expect(['started', 'credential', 'deferred']).toContain(t.before);
          expect(t.after).not.toBe('presented');
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('a presentation ends presented or failed, never in an issuance state', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        for (const t of run('presentation', events)) {
          expect(['started_presentation', 'resolved', 'presented', 'failed']).toContain(t.after);
          if (t.before === 'presented' || t.before === 'failed') expect(t.after).toBe(t.before);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
