import type { MachineModel } from '../model.ts';
import { agentModel } from './agent.ts';
import { authorizationCodeModel } from './authorization-code.ts';
import { refreshFamilyModel } from './refresh-family.ts';
import { flowRunModel } from './flow-run.ts';
import { issuanceModel } from './issuance.ts';
import { presentationModel } from './presentation.ts';

/** Every machine the tester has a model of, in the order it runs them. */
export const MODELS: Array<MachineModel<{ state: string }>> = [
  agentModel,
  authorizationCodeModel,
  refreshFamilyModel,
  issuanceModel,
  presentationModel,
  flowRunModel,
] as never[];
