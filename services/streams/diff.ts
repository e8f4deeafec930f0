import { recordedExchangeOf, type RecordedExchange } from '../../machines/flow-run.ts';
import { invalidRequest } from '../errors.ts';
import { canonicalJson } from './canonical-json.ts';
import type { StreamExport } from './export.ts';
import { isVolatileName, isVolatileValuePair } from './volatile.ts';

interface FieldDifference {
  /** RFC 6901 JSON pointer into the exchange: /request/body/scope, /response/status, /tokens/access_token/payload/scope. */
  pointer: string;
  a: unknown;
  b: unknown;
}

interface ExchangePair {
  /** Position in the aligned sequence (0-based). */
  index: number;
  step: string;
  presence: 'both' | 'only_in_a' | 'only_in_b';
  /** The exchange's position in run a and in run b (0-based), where it is there. */
  a_index?: number;
  b_index?: number;
  differences: FieldDifference[];
  /** Pointers whose values differ only as volatile values do (ids, times, nonces, codes, signatures). */
  volatile: string[];
}

interface RunSide {
  stream: string;
  protocol?: string;
  flow?: string;
  events: number;
  final_state: unknown;
}

export interface RunDiff {
  a: RunSide;
  b: RunSide;
  same_flow: boolean;
  /** The first event (0-based) whose type or resulting state differs, when the sequences differ. */
  first_divergence?: { index: number; a?: { type: string; state: unknown }; b?: { type: string; state: unknown } };
  exchanges: ExchangePair[];
  /** The same up to volatile values: same flow, same events and states, same exchanges. */
  same: boolean;
}

/** The most exchanges a run may have to be compared (a catalog flow has about a dozen). */
export const MAX_DIFF_EXCHANGES = 200;

/** Leaves are primitives or empty containers: primitives compare as they are, containers by their JSON. */
const sameJson = (x: unknown, y: unknown) =>
  x === y || (typeof x === 'object' && typeof y === 'object' && canonicalJson(x ?? null) === canonicalJson(y ?? null));

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Every leaf of a JSON value by its JSON pointer (empty objects and arrays are leaves). */
function leaves(value: unknown, pointer: string, out: Map<string, unknown>): Map<string, unknown> {
  if (value && typeof value === 'object' && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value)) leaves(child, `${pointer}/${escapePointer(key)}`, out);
  } else out.set(pointer, value);
  return out;
}

/** What of an exchange is compared: request, response and decoded tokens (duration and notes are not). */
function comparable(exchange: RecordedExchange): Map<string, unknown> {
  const out = new Map<string, unknown>();
  leaves(exchange.request, '/request', out);
  leaves(exchange.response, '/response', out);
  for (const token of exchange.tokens ?? [])
    leaves({ header: token.header, payload: token.payload }, `/tokens/${escapePointer(token.name)}`, out);
  return out;
}

/** The last named (non-index) segment of a pointer: what the value is called. */
const nameOf = (pointer: string) =>
  pointer
    .split('/')
    .filter((s) => s !== '' && !/^\d+$/.test(s))
    .at(-1)
    ?.replaceAll('~1', '/')
    .replaceAll('~0', '~') ?? '';

/**
 * The request fields a learner edited in step mode (`form.code_verifier: replaced` names `code_verifier`;
 * a query edit changes the URL): what they changed is the point of the comparison, never volatile.
 */
function editedNames(exchange: RecordedExchange): Set<string> {
  const names = new Set<string>();
  for (const edit of exchange.edited ? (exchange.edits ?? []) : []) {
    const m = /^(query|form|json|headers)\.([^:]+):/.exec(edit);
    if (!m) continue;
    names.add(m[2]!.toLowerCase());
    if (m[1] === 'query') names.add('url');
  }
  return names;
}

/**
 * Whether a difference at `pointer` is volatile: a value that differs by nature (an id, a time, a nonce,
 * a signature) in both runs. A field present in one run only, or one the learner edited, is a difference.
 */
function volatileDifference(pointer: string, x: unknown, y: unknown, edited: Set<string>): boolean {
  const name = nameOf(pointer).toLowerCase();
  if (pointer.startsWith('/request/') && edited.has(name)) return false;
  return isVolatileName(name) || isVolatileValuePair(x, y);
}

function compareExchanges(a: RecordedExchange, b: RecordedExchange): Pick<ExchangePair, 'differences' | 'volatile'> {
  const left = comparable(a);
  const right = comparable(b);
  const edited = new Set([...editedNames(a), ...editedNames(b)]);
  const differences: FieldDifference[] = [];
  const volatile: string[] = [];
  for (const pointer of new Set([...left.keys(), ...right.keys()])) {
    const x = left.get(pointer);
    const y = right.get(pointer);
    const inBoth = left.has(pointer) && right.has(pointer);
    if (sameJson(x, y) && inBoth) continue;
    if (inBoth && volatileDifference(pointer, x, y, edited)) volatile.push(pointer);
    else differences.push({ pointer, a: x, b: y });
  }
  return { differences, volatile };
}

/** Longest common subsequence of step names: exchanges are paired by step, in order. */
function alignSteps(a: string[], b: string[]): Array<[number | undefined, number | undefined]> {
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  const pairs: Array<[number | undefined, number | undefined]> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) pairs.push([i++, j++]);
    else if (j >= b.length || (i < a.length && lengths[i + 1]![j]! >= lengths[i]![j + 1]!))
      pairs.push([i++, undefined]);
    else pairs.push([undefined, j++]);
  }
  return pairs;
}

export const exchangesOf = (doc: StreamExport) =>
  doc.events.filter((e) => e.type === 'run.exchange_recorded').map(recordedExchangeOf);

function sideOf(doc: StreamExport): RunSide {
  const started = doc.events[0]?.data as { protocol?: string; flow?: string } | undefined;
  return {
    stream: doc.stream,
    ...(started?.protocol ? { protocol: started.protocol } : {}),
    ...(started?.flow ? { flow: started.flow } : {}),
    events: doc.events.length,
    final_state: doc.final_state,
  };
}

function firstDivergence(a: StreamExport, b: StreamExport): RunDiff['first_divergence'] {
  for (let index = 0; index < Math.max(a.events.length, b.events.length); index++) {
    const x = a.events[index];
    const y = b.events[index];
    if (x && y && x.type === y.type && sameJson(x.state, y.state)) continue;
    return {
      index,
      ...(x ? { a: { type: x.type, state: x.state } } : {}),
      ...(y ? { b: { type: y.type, state: y.state } } : {}),
    };
  }
  return undefined;
}

/**
 * Two runs compared: their event sequences (the first divergence of type or state) and their
 * exchanges, paired by step, field by field; volatile values are listed apart and never differ.
 * Runs of different flows are compared all the same, aligned by step.
 */
export function diffRuns(a: StreamExport, b: StreamExport): RunDiff {
  const left = exchangesOf(a);
  const right = exchangesOf(b);
  // The alignment costs the product of the two runs' exchange counts: bounded, whatever a run holds.
  if (left.length > MAX_DIFF_EXCHANGES || right.length > MAX_DIFF_EXCHANGES)
    throw invalidRequest(
      `A diff compares runs of at most ${MAX_DIFF_EXCHANGES} exchanges each (these have ${left.length} and ${right.length})`,
    );
  const exchanges = alignSteps(
    left.map((x) => x.step),
    right.map((x) => x.step),
  ).map(([i, j], index): ExchangePair => {
    const step = (i !== undefined ? left[i] : right[j!])!.step;
    if (i === undefined) return { index, step, presence: 'only_in_b', b_index: j, differences: [], volatile: [] };
    if (j === undefined) return { index, step, presence: 'only_in_a', a_index: i, differences: [], volatile: [] };
    return { index, step, presence: 'both', a_index: i, b_index: j, ...compareExchanges(left[i]!, right[j]!) };
  });
  const sideA = sideOf(a);
  const sideB = sideOf(b);
  const sameFlow = sideA.protocol === sideB.protocol && sideA.flow === sideB.flow;
  const divergence = firstDivergence(a, b);
  return {
    a: sideA,
    b: sideB,
    same_flow: sameFlow,
    ...(divergence ? { first_divergence: divergence } : {}),
    exchanges,
    same: sameFlow && !divergence && exchanges.every((x) => x.presence === 'both' && x.differences.length === 0),
  };
}
