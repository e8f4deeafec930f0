import type { FastifyInstance } from 'fastify';
import type { WorkloadIdentity } from '../../../services/workload/service.ts';

/** What the workload identity service's route plugins share. */
interface SpiffeContext {
  identity: WorkloadIdentity;
}

export type SpiffeRoutes = (app: FastifyInstance, ctx: SpiffeContext) => Promise<void>;
