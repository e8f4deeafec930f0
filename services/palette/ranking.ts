import type { Artefact } from './artefacts.ts';

/** How much each artefact type counts when scores are compared: a palette is first a way to reach a protocol. */
export const TYPE_WEIGHT: Record<Artefact['type'], number> = {
  protocol: 3,
  concept: 2,
  flow: 1.5,
  skill: 1,
  spec: 1,
  requirement: 0.5,
};

/**
 * The index's row order: weightier types first, then by id. Queries whose matches run into the thousands
 * rank only the first matches in this order (a static rank), so their cost does not grow with the index.
 */
export function staticOrder(artefacts: Artefact[]): Artefact[] {
  return [...artefacts].sort(
    (a, b) => TYPE_WEIGHT[b.type] - TYPE_WEIGHT[a.type] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
