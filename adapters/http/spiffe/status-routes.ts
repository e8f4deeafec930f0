import type { SpiffeRoutes } from './context.ts';

/** `GET /spiffe/status` and `GET /spiffe/workload`. */
export const statusRoutes: SpiffeRoutes = async (app, { identity }) => {
  app.get('/spiffe/status', { schema: { summary: 'Status of the workload identity service' } }, () =>
    identity.status(),
  );
  app.get(
    '/spiffe/workload',
    { schema: { summary: 'The workload: its SPIFFE IDs and its Workload API connection' } },
    () => identity.workload(),
  );
};
