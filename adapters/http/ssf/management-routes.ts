import type { FastifyInstance, FastifyRequest } from 'fastify';
import { oauthError } from '../../../services/errors.ts';
import { transmitterConfiguration, type SsfSettings } from '../../../services/ssf/configuration.ts';
import type { SsfEmitter } from '../../../services/ssf/emit.ts';
import { eventBodyFault } from '../../../services/ssf/event-types.ts';
import type { SsfPoll } from '../../../services/ssf/poll.ts';
import { objectBody, streamIdOf } from '../../../services/ssf/requests.ts';
import type { SsfStreams } from '../../../services/ssf/streams.ts';
import { subjectFault } from '../../../services/ssf/subjects.ts';
import { jsonObject } from '../response-schemas.ts';

const errorResponse = { $ref: 'OAuthError#' };
const streamQuery = {
  type: 'object',
  properties: { stream_id: { type: 'string', maxLength: 64 } },
};
const errors = { 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse };
const streamConfig = jsonObject('The stream configuration (SSF 1.0 §8.1.1)', {
  stream_id: { type: 'string' },
  iss: { type: 'string' },
  aud: { type: 'string' },
  events_supported: { type: 'array', items: { type: 'string' } },
  events_requested: { type: 'array', items: { type: 'string' } },
  events_delivered: { type: 'array', items: { type: 'string' } },
  delivery: { type: 'object', additionalProperties: true },
  min_verification_interval: { type: 'integer' },
});
const openBody = { type: 'object', additionalProperties: true };
const streamStatus = jsonObject('The stream status (SSF 1.0 §8.1.2)', {
  stream_id: { type: 'string' },
  status: { type: 'string' },
  reason: { type: 'string' },
});

export interface ManagementDeps {
  streams: SsfStreams;
  emitter: SsfEmitter;
  polling: SsfPoll;
  settings: SsfSettings;
  /** The calling client, by its access token of `{base}/oauth2` with scope `ssf`. */
  clientOf(request: FastifyRequest): Promise<string>;
}

/** The transmitter's metadata, stream management API, `POST /ssf/events` and poll delivery (SSF 1.0 §7, §8; RFC 8936). */
export function ssfManagementRoutes(app: FastifyInstance, deps: ManagementDeps): void {
  const { streams, emitter, polling, settings, clientOf } = deps;
  const tags = ['ssf'];
  const queryStream = (request: FastifyRequest) => streamIdOf((request.query as { stream_id?: string }).stream_id);

  const configuration = JSON.stringify(transmitterConfiguration(settings));
  app.get(
    '/.well-known/ssf-configuration',
    {
      schema: {
        summary: 'Shared Signals transmitter configuration metadata (SSF 1.0 §7.1)',
        tags: ['discovery', ...tags],
      },
    },
    async (_request, reply) => reply.type('application/json').send(configuration),
  );

  app.post(
    '/ssf/streams',
    {
      schema: {
        summary: 'Create a stream (SSF 1.0 §8.1.1.1)',
        tags,
        body: openBody,
        response: { 201: streamConfig, ...errors },
      },
    },
    async (request, reply) => {
      const created = await streams.create(await clientOf(request), request.body);
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );
  app.get(
    '/ssf/streams',
    {
      schema: {
        summary: 'Read one stream (stream_id) or every stream of the client (SSF 1.0 §8.1.1.2)',
        tags,
        querystring: streamQuery,
        response: { 200: { anyOf: [streamConfig, { type: 'array', items: streamConfig }] }, ...errors },
      },
    },
    async (request, reply) => {
      const client = await clientOf(request);
      reply.header('cache-control', 'no-store');
      const { stream_id } = request.query as { stream_id?: string };
      if (stream_id === undefined)
        return (await streams.ofClient(client)).map((s) => streams.view(s.id, s.stream.snapshot.context));
      const stream = await streams.owned(client, streamIdOf(stream_id));
      return streams.view(stream_id, stream.snapshot.context);
    },
  );
  for (const [method, replace] of [
    ['PATCH', false],
    ['PUT', true],
  ] as const)
    app.route({
      method,
      url: '/ssf/streams',
      schema: {
        summary: replace
          ? 'Replace a stream configuration (SSF 1.0 §8.1.1.4)'
          : 'Update a stream configuration (SSF 1.0 §8.1.1.3)',
        tags,
        body: openBody,
        response: { 200: streamConfig, ...errors },
      },
      handler: async (request, reply) => {
        const updated = await streams.update(await clientOf(request), request.body, replace);
        return reply.header('cache-control', 'no-store').send(updated);
      },
    });
  app.delete(
    '/ssf/streams',
    {
      schema: {
        summary: 'Delete a stream (SSF 1.0 §8.1.1.5)',
        tags,
        querystring: streamQuery,
        response: { 204: { description: 'Deleted', type: 'null' }, ...errors },
      },
    },
    async (request, reply) => {
      await streams.remove(await clientOf(request), queryStream(request));
      return reply.code(204).header('cache-control', 'no-store').send();
    },
  );
  app.get(
    '/ssf/status',
    {
      schema: {
        summary: "Read a stream's status (SSF 1.0 §8.1.2.1)",
        tags,
        querystring: streamQuery,
        response: { 200: streamStatus, ...errors },
      },
    },
    async (request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .send(await streams.status(await clientOf(request), queryStream(request))),
  );
  app.post(
    '/ssf/status',
    {
      schema: {
        summary: "Change a stream's status: enabled, paused, disabled (SSF 1.0 §8.1.2.2)",
        tags,
        body: openBody,
        response: { 200: streamStatus, ...errors },
      },
    },
    async (request, reply) =>
      reply.header('cache-control', 'no-store').send(await streams.setStatus(await clientOf(request), request.body)),
  );
  for (const [path, add] of [
    ['/ssf/subjects::add', true],
    ['/ssf/subjects::remove', false],
  ] as const)
    app.post(
      path,
      {
        schema: {
          summary: add
            ? 'Add a subject to a stream (SSF 1.0 §8.1.3.2)'
            : 'Remove a subject from a stream (SSF 1.0 §8.1.3.3)',
          tags,
          body: openBody,
          response: { 200: { description: 'Done; no body', type: 'null' }, ...errors },
        },
      },
      async (request, reply) => {
        await streams.subject(await clientOf(request), request.body, add);
        return reply.code(200).header('cache-control', 'no-store').send();
      },
    );
  app.post(
    '/ssf/verify',
    {
      schema: {
        summary: 'Ask for a verification SET (SSF 1.0 §8.1.4.2)',
        tags,
        body: openBody,
        response: { 204: { description: 'A verification SET is queued', type: 'null' }, ...errors, 429: errorResponse },
      },
    },
    async (request, reply) => {
      await streams.verify(await clientOf(request), request.body);
      return reply.code(204).header('cache-control', 'no-store').send();
    },
  );
  app.post(
    '/ssf/events',
    {
      schema: {
        summary: "Emit any CAEP or RISC event to the calling client's own streams (to try each event type)",
        tags,
        body: openBody,
        response: { 202: jsonObject('The SETs queued, per stream'), ...errors },
      },
    },
    async (request, reply) => {
      const client = await clientOf(request);
      const body = objectBody(request.body);
      if (typeof body.event_type !== 'string') throw oauthError('invalid_request', 'event_type is required');
      const fault = eventBodyFault(body.event_type, body.event ?? {}) ?? subjectFault(body.subject);
      if (fault) throw oauthError('invalid_request', fault);
      const queued = await emitter.emit({
        eventType: body.event_type,
        subject: body.subject as Record<string, unknown>,
        body: (body.event ?? {}) as Record<string, unknown>,
        clientId: client,
      });
      return reply.code(202).header('cache-control', 'no-store').send({ queued });
    },
  );
  app.post(
    '/ssf/poll/:stream_id',
    {
      schema: {
        summary: 'Poll a stream for SETs, acknowledging those received (RFC 8936)',
        tags,
        params: {
          type: 'object',
          required: ['stream_id'],
          properties: { stream_id: { type: 'string', maxLength: 64 } },
        },
        body: openBody,
        response: { 200: jsonObject('{sets: {jti: SET}, moreAvailable}'), ...errors },
      },
    },
    async (request, reply) => {
      const client = await clientOf(request);
      const { stream_id } = request.params as { stream_id: string };
      return reply
        .header('cache-control', 'no-store')
        .send(await polling.poll(client, streamIdOf(stream_id), request.body));
    },
  );
}
