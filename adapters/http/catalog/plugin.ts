import type { FastifyInstance } from 'fastify';
import type { Flow, Protocol } from '../../../services/content/catalog.ts';
import { notFound } from '../../../services/errors.ts';
import type { MainContext } from '../main/context.ts';
import { resumableQuery, resumeCursor } from '../sse.ts';
import { runTokensOf } from '../run-tokens.ts';
import { runOptionsOf } from '../../../services/flows/run-options.ts';
import {
  errorResponse,
  flowSchema,
  idParams,
  protocolSchema,
  runOptionProperties,
  runSchema,
  stepBodySchema,
  targetSchema,
} from './schemas.ts';
import { requestEditOf } from '../../../services/flows/request-edit.ts';

/** The protocol catalog, the flow runner and runs (spec section 4 "Open read and demo APIs"). */
export async function catalogRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const { catalog, flowRuns } = ctx;
  const protocolRecord = (p: Protocol) => ({
    id: p.id,
    name: p.name,
    version: p.version,
    description: p.description,
    tags: p.tags,
    specs: p.specs,
    flows: catalog.flows(p.id).length,
  });
  const flowRecord = (p: Protocol, f: Flow) => ({
    id: f.id,
    name: f.name,
    description: f.description,
    category: f.category,
    executable: flowRuns.executable(p.id, f.id),
    steps: f.steps,
    options: runOptionsOf(p.id, f.id).map((o) => ({
      name: o.name,
      description: o.description,
      ...(o.values ? { values: [...o.values] } : {}),
      default: o.default,
      ...(o.maxLength ? { max_length: o.maxLength } : {}),
    })),
  });
  const protocolOr404 = (id: string) => {
    const p = catalog.protocol(id);
    if (!p) throw notFound(`No protocol "${id}"`);
    return p;
  };

  app.get(
    '/api/protocols',
    {
      schema: {
        summary: 'Protocol catalog',
        tags: ['catalog'],
        response: { 200: { type: 'object', properties: { protocols: { type: 'array', items: protocolSchema } } } },
      },
    },
    async () => ({ protocols: catalog.protocols().map(protocolRecord) }),
  );

  app.get(
    '/api/protocols/:id',
    {
      schema: {
        summary: 'One protocol',
        tags: ['catalog'],
        params: idParams,
        response: { 200: protocolSchema, 404: errorResponse },
      },
    },
    async (request) => protocolRecord(protocolOr404((request.params as { id: string }).id)),
  );

  app.get(
    '/api/protocols/:id/flows',
    {
      schema: {
        summary: 'Flows of a protocol',
        tags: ['catalog'],
        params: idParams,
        response: {
          200: {
            type: 'object',
            properties: { protocol: { type: 'string' }, flows: { type: 'array', items: flowSchema } },
          },
          404: errorResponse,
        },
      },
    },
    async (request) => {
      const p = protocolOr404((request.params as { id: string }).id);
      return { protocol: p.id, flows: catalog.flows(p.id).map((f) => flowRecord(p, f)) };
    },
  );

  app.post(
    '/api/protocols/:id/demo/:flow',
    {
      schema: {
        summary: 'Start a real protocol flow against this origin and capture every exchange',
        tags: ['catalog'],
        params: {
          type: 'object',
          required: ['id', 'flow'],
          properties: { id: { type: 'string', maxLength: 100 }, flow: { type: 'string', maxLength: 100 } },
        },
        body: {
          type: 'object',
          nullable: true,
          additionalProperties: false,
          properties: {
            ...runOptionProperties,
            target: targetSchema,
            mode: {
              type: 'string',
              enum: ['run', 'step'],
              description:
                'run (default): the flow runs to its end. step: it pauses before every request; the answer (202) holds run_token, the capability for POST /api/runs/{id}/step, /continue and /cancel.',
            },
          },
        },
        response: {
          201: runSchema,
          202: {
            type: 'object',
            additionalProperties: true,
            properties: {
              run_id: { type: 'string' },
              status: { type: 'string' },
              events: { type: 'string' },
              run_token: { type: 'string', description: 'Step mode: the run capability, shown only here' },
            },
          },
          404: errorResponse,
          409: errorResponse,
        },
      },
    },
    async (request, reply) => {
      const { id, flow } = request.params as { id: string; flow: string };
      const launched = await flowRuns.launch(id, flow, (request.body ?? {}) as Record<string, unknown>, request.ip);
      reply.header('location', `/api/runs/${launched.id}`).header('cache-control', 'no-store');
      // RFC 7240: with `Prefer: respond-async` the run id comes back at once; follow /api/runs/{id}/events.
      if (/\brespond-async\b/i.test(String(request.headers.prefer ?? ''))) {
        void launched.done.catch(() => undefined);
        return reply
          .code(202)
          .header('preference-applied', 'respond-async')
          .send({
            run_id: launched.id,
            status: 'running',
            events: `/api/runs/${launched.id}/events`,
            ...(launched.runToken ? { run_token: launched.runToken } : {}),
          });
      }
      // Step mode: answered once the run waits before its first request (run_token is shown only here);
      // a run against a target, once it ends or waits for a person to sign in there.
      if (launched.runToken || launched.targeted) {
        const view = await flowRuns.answer(launched);
        return reply.code(view.status === 'paused' || view.status === 'awaiting_user' ? 202 : 201).send(view);
      }
      reply.code(201);
      return launched.done;
    },
  );

  app.get(
    '/api/runs/:id',
    {
      schema: {
        summary: 'A run, as its event stream records it (secrets redacted)',
        tags: ['catalog'],
        params: idParams,
        response: { 200: runSchema, 404: errorResponse },
      },
    },
    async (request) => {
      const id = (request.params as { id: string }).id;
      const view = await flowRuns.viewFor(id, runTokensOf(request.headers, id));
      if (!view) throw notFound('No such run');
      return view;
    },
  );

  for (const [action, summary] of [
    [
      'step',
      'Step mode: send the next request (edited first with {"edit": {query, form, json, headers}}), then pause again',
    ],
    ['continue', 'Step mode: run to the end without pausing'],
    ['cancel', 'Step mode: end the run as cancelled'],
  ] as const)
    app.post(
      `/api/runs/:id/${action}`,
      {
        schema: {
          summary: `${summary} (Bearer run_token)`,
          tags: ['catalog'],
          params: idParams,
          body: action === 'step' ? stepBodySchema : { type: 'object', nullable: true, additionalProperties: false },
          response: { 200: runSchema, 400: errorResponse, 401: errorResponse, 404: errorResponse, 409: errorResponse },
        },
      },
      async (request, reply) => {
        const runId = (request.params as { id: string }).id;
        reply.header('cache-control', 'no-store');
        const command =
          action === 'step' ? { kind: 'step' as const, edit: requestEditOf(request.body) } : { kind: action };
        return flowRuns.control(runId, request.headers.authorization, command);
      },
    );

  app.get(
    '/api/runs/:id/events',
    {
      schema: {
        summary: 'A run as Server-Sent Events, live until it finishes; resume with Last-Event-ID or ?after=<version>',
        tags: ['catalog'],
        params: idParams,
        querystring: resumableQuery,
      },
    },
    async (request, reply) => {
      const id = (request.params as { id: string }).id;
      if (!(await flowRuns.readable(id, runTokensOf(request.headers, id)))) throw notFound('No such run');
      type RunEvent = { version: number; type: string; at: number; data: Record<string, unknown> };
      // Following starts before the read, so an event committed meanwhile (here or on another instance) is not lost.
      const early: RunEvent[] = [];
      let deliver: (e: RunEvent) => void = (e) => void early.push(e);
      const unsubscribe = flowRuns.follow(id, (e) => deliver(e));
      const stored = await ctx.log.readStream(`run:${id}`).catch((error: unknown) => {
        unsubscribe();
        throw error;
      });
      if (stored.length === 0) {
        unsubscribe();
        throw notFound('No such run');
      }
      let last = resumeCursor(request);
      const stream = ctx.sse.start(request, reply, () => unsubscribe());
      const send = (e: RunEvent) => {
        if (e.version <= last || stream.ended) return;
        last = e.version;
        stream.send({
          id: e.version,
          event: e.type,
          data: JSON.stringify({ at: new Date(e.at).toISOString(), ...e.data }),
        });
        if (e.type === 'run.finished' || e.type === 'run.interrupted') stream.end();
      };
      for (const e of [...stored, ...early]) send(e);
      deliver = send;
    },
  );
}
