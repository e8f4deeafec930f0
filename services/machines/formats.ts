import type { MachineDefinition, TransitionData } from './definition.ts';

const xml = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** Root transitions are taken in every state (final ones included); each format draws them on each state. */
function transitionsOf(definition: MachineDefinition, state: string): TransitionData[] {
  return [...definition.states[state]!.on, ...definition.on];
}

/**
 * W3C SCXML 1.0: one `<state>` or `<final>` per state, one `<transition>` per transition (the guard's
 * name as `cond`, a transition without target staying in its state).
 */
export function toScxml(definition: MachineDefinition): string {
  const states = Object.entries(definition.states).map(([name, data]) => {
    const tag = data.final ? 'final' : 'state';
    const transitions = transitionsOf(definition, name).map(
      (t) =>
        `    <transition event="${xml(t.event)}"${t.target ? ` target="${xml(t.target)}"` : ''}${t.guard ? ` cond="${xml(t.guard)}"` : ''}/>`,
    );
    const doc = data.description ? [`    <!-- ${xml(data.description).replaceAll('--', '—')} -->`] : [];
    return transitions.length || doc.length
      ? `  <${tag} id="${xml(name)}">\n${[...doc, ...transitions].join('\n')}\n  </${tag}>`
      : `  <${tag} id="${xml(name)}"/>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="${xml(definition.id)}" initial="${xml(definition.initial)}">
${states.join('\n')}
</scxml>
`;
}

/** Mermaid `stateDiagram-v2` text: `[*]` into the initial state and out of each final one. */
export function toMermaid(definition: MachineDefinition): string {
  const lines = ['stateDiagram-v2', `  [*] --> ${definition.initial}`];
  for (const [name, data] of Object.entries(definition.states)) {
    for (const t of transitionsOf(definition, name))
      lines.push(`  ${name} --> ${t.target ?? name} : ${t.event}${t.guard ? ` [${t.guard}]` : ''}`);
    if (data.final) lines.push(`  ${name} --> [*]`);
  }
  return `${lines.join('\n')}\n`;
}

const dot = (value: string) => `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** Graphviz DOT for the diagram; `current` is drawn highlighted. Root transitions are noted once, not per state. */
export function toDot(definition: MachineDefinition, current?: string): string {
  const nodes = Object.entries(definition.states).map(([name, data]) => {
    const style = [
      data.final ? 'shape=doublecircle' : 'shape=box, style="rounded"',
      name === current ? 'penwidth=3, color="#b45309"' : '',
    ].filter(Boolean);
    return `  ${dot(name)} [${style.join(', ')}];`;
  });
  const edges = Object.entries(definition.states).flatMap(([name, data]) =>
    data.on.map(
      (t) =>
        `  ${dot(name)} -> ${dot(t.target ?? name)} [label=${dot(`${t.event}${t.guard ? ` [${t.guard}]` : ''}`)}];`,
    ),
  );
  const everywhere = definition.on.length
    ? [`  "any state" [shape=note, label=${dot(`in any state:\n${definition.on.map((t) => t.event).join('\n')}`)}];`]
    : [];
  return `digraph ${dot(definition.id)} {
  rankdir=TB; node [fontname="Helvetica", fontsize=11]; edge [fontname="Helvetica", fontsize=9];
  "__start" [shape=point, label=""];
  "__start" -> ${dot(definition.initial)};
${[...nodes, ...edges, ...everywhere].join('\n')}
}
`;
}
