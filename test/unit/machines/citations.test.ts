import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../../machines/agent.ts';
import { citationsOf, citedRules } from '../../../services/machines/citations.ts';
import { machineDefinition } from '../../../services/machines/definition.ts';

// Issue 32: each rule of the specification a transition cites links to that transition on the machine page.
describe('the rules transitions cite', () => {
  it('reads each service-spec row apart, then RFC, OpenID and decision sections', () => {
    expect(
      citationsOf(
        'A poll. RFC 8628 §3.5, RFC 9207. Service spec §3 Agent lifecycle, rows "assertion unredeemed" and "assertion redeemed".',
      ),
    ).toEqual([
      'Service spec §3 Agent lifecycle, row "assertion unredeemed"',
      'Service spec §3 Agent lifecycle, row "assertion redeemed"',
      'RFC 8628 §3.5',
      'RFC 9207',
    ]);
    expect(citationsOf('POST /oid4vci/credential (OpenID4VCI 1.0 §8; decisions §8).')).toEqual([
      'OpenID4VCI 1.0 §8',
      'Decisions §8',
    ]);
    expect(citationsOf('nothing cited here')).toEqual([]);
  });

  it('lists every row of the agent lifecycle table with the transitions that implement it', () => {
    const rules = new Map(citedRules(machineDefinition(agentMachine)).map((r) => [r.rule, r.transitions]));
    const row = (name: string) => rules.get(`Service spec §3 Agent lifecycle, row "${name}"`);
    expect(row('(no agent)')).toEqual([{ from: 'unregistered', event: 'agent.registered', to: 'unclaimed' }]);
    expect(row('any agent')!.map((t) => t.from)).toEqual(['unclaimed', 'claiming', 'claimed']);
    expect(row('claim pending')).toContainEqual({
      from: 'claiming',
      event: 'agent.claim_polled',
      to: 'claimed',
      guard: 'pollGrants',
    });
  });
});
