import type { AnyStateMachine } from 'xstate';
import { sha256 } from '../crypto/random.ts';
import { canonicalJson } from './canonical-json.ts';

const versions = new WeakMap<AnyStateMachine, string>();

/**
 * A machine's version: the SHA-256 (base64url) of the canonical JSON of its definition (states,
 * transitions, targets, guard and action names). A file that names it says which machine produced it.
 */
export function machineVersion(machine: AnyStateMachine): string {
  let version = versions.get(machine);
  if (version === undefined) {
    // JSON.stringify drops inline functions; what remains is the machine's structure.
    version = sha256(canonicalJson(JSON.parse(JSON.stringify(machine.definition))));
    versions.set(machine, version);
  }
  return version;
}
