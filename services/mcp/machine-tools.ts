import { fromJsonSchema, type McpServer } from '@modelcontextprotocol/server';
import type { MachineDefinition } from '../machines/definition.ts';
import type { PathStep } from '../machines/paths.ts';
import { READ_ONLY, result, str, toolError } from './tool-kit.ts';

export interface MachineToolDeps {
  machine(id: string): { definition: MachineDefinition; paths: Record<string, PathStep[]> } | undefined;
  machineIds(): string[];
}

const GET_MACHINE_IN = fromJsonSchema<{ id: string }>({
  type: 'object',
  properties: {
    id: str('A machine id: agent, authorizationCode, refreshFamily, issuance, presentation, flowRun, …', 100),
  },
  required: ['id'],
  additionalProperties: false,
});
const GET_MACHINE_OUT = fromJsonSchema({
  type: 'object',
  properties: { definition: { type: 'object' }, paths: { type: 'object' } },
  required: ['definition', 'paths'],
});

/** `get_machine`: a state machine's definition and the shortest event path to each state. */
export function registerMachineTools(server: McpServer, deps: MachineToolDeps): void {
  server.registerTool(
    'get_machine',
    {
      title: 'Get a state machine',
      description:
        "One of Portico's state machines as data: states, transitions (event, target, guard), events, the version stream exports name, and the shortest event path to every state.",
      inputSchema: GET_MACHINE_IN,
      outputSchema: GET_MACHINE_OUT,
      annotations: READ_ONLY,
    },
    async ({ id }) => {
      const found = deps.machine(id);
      return found ? result(found) : toolError(`No machine "${id}". Machines: ${deps.machineIds().join(', ')}.`);
    },
  );
}
