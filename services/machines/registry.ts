import type { AnyStateMachine } from 'xstate';
import { MACHINES_BY_STREAM_PREFIX } from '../../machines/index.ts';
import { machineDefinition, type MachineDefinition } from './definition.ts';

export interface PublishedMachine {
  id: string;
  stream_prefix: string;
  machine: AnyStateMachine;
  definition: MachineDefinition;
}

/** Every machine that folds a kind of stream, by its id (`agent`, `issuance`, `flowRun`, …), each derived once. */
export class MachineRegistry {
  private readonly byId = new Map<string, PublishedMachine>();

  constructor(machines: Record<string, AnyStateMachine> = MACHINES_BY_STREAM_PREFIX) {
    for (const [prefix, machine] of Object.entries(machines))
      this.byId.set(machine.id, {
        id: machine.id,
        stream_prefix: prefix,
        machine,
        definition: machineDefinition(machine),
      });
  }

  list(): PublishedMachine[] {
    return [...this.byId.values()];
  }

  get(id: string): PublishedMachine | undefined {
    return this.byId.get(id);
  }

  /** The machine that folds a stream id's kind. */
  forStream(streamId: string): PublishedMachine | undefined {
    const prefix = streamId.slice(0, streamId.indexOf(':'));
    return this.list().find((m) => m.stream_prefix === prefix);
  }
}
