import type { MachineModel } from '../model.ts';
import { agentModel } from './agent.ts';

/** Every machine the tester has a model of, in the order it runs them. */
export const MODELS: Array<MachineModel<{ state: string }>> = [agentModel as never];
