import type { MachineDefinition } from './definition.ts';

/** A rule a transition cites, and the transitions that implement it (`from` is `*` for any state). */
export interface CitedRule {
  rule: string;
  transitions: Array<{ from: string; event: string; to: string; guard?: string }>;
}

const SERVICE_SPEC_ROWS = /(Service spec §\d+ [A-Z][\w ]+?), rows? ((?:"[^"]+"(?:\s*\([^)]*\))?(?:,\s*| and )?)+)/g;
const SECTIONS = [
  /RFC \d{4}(?: §[\d.]+(?:[-–][\d.]+)?)?/g,
  /OpenID4V(?:CI|P) 1\.0 §[\d.]+/g,
  /[Dd]ecisions §\d+/g,
  /[Ss]ervice spec §\d+(?: [A-Z][\w ]+?)?(?=[,.)]|$)/g,
];

/** The rules one description cites: each service-spec table row apart, then RFC, OpenID and decision sections. */
export function citationsOf(description: string): string[] {
  const found = new Set<string>();
  let rest = description;
  for (const match of description.matchAll(SERVICE_SPEC_ROWS)) {
    for (const row of match[2]!.matchAll(/"([^"]+)"/g)) found.add(`${match[1]}, row "${row[1]}"`);
    rest = rest.replace(match[0], '');
  }
  for (const pattern of SECTIONS)
    for (const m of rest.matchAll(pattern))
      found.add(m[0].replace(/^decisions/, 'Decisions').replace(/^service/, 'Service'));
  return [...found];
}

/** Every rule the machine's transitions cite, in first-cited order, each with the transitions citing it. */
export function citedRules(definition: MachineDefinition): CitedRule[] {
  const rules = new Map<string, CitedRule>();
  const visit = (from: string, t: { event: string; target?: string; guard?: string; description?: string }) => {
    for (const rule of citationsOf(t.description ?? '')) {
      const entry = rules.get(rule) ?? { rule, transitions: [] };
      entry.transitions.push({ from, event: t.event, to: t.target ?? from, ...(t.guard ? { guard: t.guard } : {}) });
      rules.set(rule, entry);
    }
  };
  for (const [from, state] of Object.entries(definition.states)) for (const t of state.on) visit(from, t);
  for (const t of definition.on) visit('*', t);
  return [...rules.values()];
}
