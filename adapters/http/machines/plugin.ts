import type { FastifyInstance } from 'fastify';
import { notFound } from '../../../services/errors.ts';
import { toDot, toMermaid, toScxml } from '../../../services/machines/formats.ts';
import { shortestPaths } from '../../../services/machines/paths.ts';
import { graphvizSvg } from '../../diagrams/graphviz.ts';
import type { MainContext } from '../main/context.ts';
import { sendOrNotFound } from '../streams/pages.ts';
import { machinePage, machinesPage } from './pages.ts';
import { machineDefinitionSchema, machineListSchema, machinePathsSchema } from './schemas.ts';

const errorResponse = { $ref: 'OAuthError#' };
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } };

/** The machines as data (docs/machines.md): definitions, SCXML, Mermaid, shortest paths, and their pages. */
export async function machineRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const { machines } = ctx;
  const machineOf = (id: string) => {
    const found = machines.get(id);
    if (!found) throw notFound(`No machine "${id}"`);
    return found;
  };
  const svgs = new Map<string, Promise<string>>();
  const diagram = (id: string, current?: string) => {
    const key = `${id}\n${current ?? ''}`;
    if (!svgs.has(key)) svgs.set(key, graphvizSvg(toDot(machineOf(id).definition, current)));
    return svgs.get(key)!;
  };

  app.get(
    '/api/machines',
    {
      schema: {
        summary: 'Every state machine: id, stream prefix, description, version, states and events',
        tags: ['machines'],
        response: { 200: machineListSchema },
      },
    },
    async () => ({
      machines: machines.list().map((m) => ({
        id: m.id,
        stream_prefix: m.stream_prefix,
        ...(m.definition.description ? { description: m.definition.description } : {}),
        version: m.definition.version,
        states: Object.keys(m.definition.states),
        events: m.definition.events,
      })),
    }),
  );

  app.get(
    '/api/machines/:id',
    {
      schema: {
        summary:
          'A machine definition derived from the machine itself; ?format=scxml (W3C SCXML 1.0) or ?format=mermaid (stateDiagram-v2)',
        tags: ['machines'],
        params: idParams,
        querystring: {
          type: 'object',
          properties: { format: { type: 'string', enum: ['json', 'scxml', 'mermaid'] } },
        },
        response: { 200: machineDefinitionSchema, 400: errorResponse, 404: errorResponse },
      },
    },
    async (request, reply) => {
      const { definition } = machineOf((request.params as { id: string }).id);
      const format = (request.query as { format?: string }).format ?? 'json';
      if (format === 'scxml') return reply.type('application/scxml+xml; charset=utf-8').send(toScxml(definition));
      if (format === 'mermaid') return reply.type('text/plain; charset=utf-8').send(toMermaid(definition));
      return definition;
    },
  );

  app.get(
    '/api/machines/:id/paths',
    {
      schema: {
        summary: 'The shortest event path to every state (xstate/graph), each step with the guard it needs',
        tags: ['machines'],
        params: idParams,
        response: { 200: machinePathsSchema, 404: errorResponse },
      },
    },
    async (request) => {
      const m = machineOf((request.params as { id: string }).id);
      return { id: m.id, version: m.definition.version, paths: shortestPaths(m.machine) };
    },
  );

  app.get('/machines', { schema: { summary: 'Every state machine (page)', tags: ['pages'] } }, async (request, reply) =>
    sendOrNotFound(request, reply, async () => machinesPage(machines.list())),
  );

  app.get(
    '/machines/:id',
    {
      schema: {
        summary:
          'A machine drawn (SVG laid out by Graphviz), its states and transitions; ?state= highlights one (page)',
        tags: ['pages'],
        params: idParams,
        querystring: { type: 'object', properties: { state: { type: 'string', maxLength: 100 } } },
      },
    },
    async (request, reply) =>
      sendOrNotFound(request, reply, async () => {
        const m = machineOf((request.params as { id: string }).id);
        const state = (request.query as { state?: string }).state;
        const current = state !== undefined && Object.hasOwn(m.definition.states, state) ? state : undefined;
        return machinePage(m, await diagram(m.id, current), current);
      }),
  );
}
