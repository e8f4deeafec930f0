import type { AnyStateMachine } from 'xstate';
import { toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';
import { guardName, SINGLE_STATE } from './definition.ts';

export interface PathStep {
  event: string;
  /** The state this step leads to. */
  target: string;
  /** The guard that must hold for the step to be taken, when there is one. */
  guard?: string;
}

type Edge = { source: string; target: string; event: string; guard?: string };

function edgesOf(node: DirectedGraphNode, out: Edge[] = []): Edge[] {
  for (const edge of node.edges) {
    const guard = guardName(edge.transition.guard);
    out.push({ source: edge.source.key, target: edge.target.key, event: edge.label.text, ...(guard ? { guard } : {}) });
  }
  for (const child of node.children) edgesOf(child, out);
  return out;
}

/**
 * The shortest event path from the initial state to every state, over the machine's directed graph
 * (xstate/graph `toDirectedGraph`), each step with the guard it needs. A state no path reaches is absent.
 *
 * These are the definition's paths, guards named, not a simulation. xstate/graph's `getShortestPaths`
 * answers another question (which snapshots events reach, guards evaluated on a simulated context) and
 * cannot give these: measured on 2026-11-29 over the published machines without event payloads, it
 * throws on `agent` (its guards read payload members) and `setReceiver` (a guard it cannot evaluate),
 * reaches 2 of 4 states of `authorizationCode` and 2 of 5 of `interaction`, and exhausts a 4 GB heap
 * on a machine whose context grows with every event.
 */
export function shortestPaths(machine: AnyStateMachine): Record<string, PathStep[]> {
  const graph = toDirectedGraph(machine);
  const edges = edgesOf(graph);
  // A machine without child states has no initial transition to follow.
  const initial = Object.keys(machine.root.states).length > 0 ? machine.root.initial.target[0]?.key : undefined;
  const paths: Record<string, PathStep[]> = {};
  if (!initial) return { [SINGLE_STATE]: [] };
  paths[initial] = [];
  const queue = [initial];
  while (queue.length > 0) {
    const state = queue.shift()!;
    for (const edge of edges.filter((e) => e.source === state && !(e.target in paths))) {
      paths[edge.target] = [
        ...paths[state]!,
        { event: edge.event, target: edge.target, ...(edge.guard ? { guard: edge.guard } : {}) },
      ];
      queue.push(edge.target);
    }
  }
  return paths;
}
