import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Block, Inline, PageDocument } from '../../../services/pages/document.ts';
import type { SsfReceivers } from '../../../services/ssf/receiver.ts';
import { sendPage } from '../pages/respond.ts';

/**
 * RFC 8935 §2.3 names a refusal `{err, description}`; the service's contract names every error
 * `{error, error_description}` (decisions §11): both are sent, so either reader finds its members.
 */
const pushRefusal = (err: string, description: string) => ({
  err,
  description,
  error: err,
  error_description: description,
});
import { jsonObject } from '../response-schemas.ts';

const errorResponse = { $ref: 'OAuthError#' };
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };
/** RFC 8935 §2.3: a push refused. */
const pushError = jsonObject(
  'An RFC 8935 error: err (invalid_request, invalid_key, invalid_issuer, invalid_audience, authentication_failed) and description, repeated as error and error_description',
  {
    err: { type: 'string' },
    description: { type: 'string' },
    error: { type: 'string' },
    error_description: { type: 'string' },
  },
);
const wantsJson = (request: FastifyRequest) => /application\/json/.test(request.headers.accept ?? '');

/** The receiver's page (and its markdown twin): what it trusts, then each SET received with its verdict. */
function receiverPage(view: Awaited<ReturnType<SsfReceivers['view']>>): PageDocument {
  return {
    title: `SET receiver ${view.receiver_id}`,
    description: 'What this Shared Signals receiver was pushed, decoded, with the verdict of each check (RFC 8935).',
    noindex: true,
    blocks: [
      { kind: 'heading', level: 1, text: `SET receiver ${view.receiver_id}` },
      {
        kind: 'list',
        items: [
          ['Endpoint: ', { code: view.endpoint_url }],
          ['Transmitter (iss): ', { code: view.transmitter }],
          ['Audience (aud): ', { code: view.audience }],
        ],
      },
      { kind: 'heading', level: 2, text: `Last ${view.received.length} SETs, newest first` },
      view.received.length === 0
        ? {
            kind: 'paragraph',
            inlines: ['Nothing received yet. Create a push stream with this endpoint and ask it to verify.'],
          }
        : {
            kind: 'table',
            head: ['received', 'verdict', 'event types', 'subject', 'jti'],
            rows: view.received.map((r) => [
              [r.at],
              [r.verdict === 'accepted' ? 'accepted (202)' : `refused: ${r.err} (${r.description})`],
              [(r.event_types ?? []).join(', ')],
              [{ code: JSON.stringify(r.sub_id ?? null) }],
              [{ code: r.jti ?? '' }],
            ]),
          },
      ...view.received.flatMap(decodedEvents),
    ],
  };
}

/**
 * Each event of an accepted SET, decoded: its type, then every field it carries (a verification's
 * `state` among them), so a reader sees what was signalled, not only that something was.
 */
function decodedEvents(r: Awaited<ReturnType<SsfReceivers['view']>>['received'][number]): Block[] {
  const events = r.claims?.events;
  if (!events || typeof events !== 'object') return [];
  return Object.entries(events as Record<string, unknown>).flatMap(([type, body]): Block[] => [
    { kind: 'heading', level: 3, text: `${type.split('/').pop() ?? type} (SET ${r.jti ?? 'without jti'})` },
    {
      kind: 'list',
      items: [
        ['event type: ', { code: type }],
        ...Object.entries(body && typeof body === 'object' ? (body as Record<string, unknown>) : {}).map(
          ([field, value]): Inline[] => [`${field}: `, { code: JSON.stringify(value) }],
        ),
      ],
    },
  ]);
}

/** Portico's own SET receiver (docs/ssf.md): create one, push to it, read what it judged. */
export function ssfReceiverRoutes(app: FastifyInstance, receivers: SsfReceivers): void {
  const tags = ['ssf'];
  app.addContentTypeParser(
    'application/secevent+jwt',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, body),
  );
  app.post(
    '/ssf/receivers',
    {
      schema: {
        summary: 'Create a SET receiver: its endpoint and the Authorization header a transmitter must send',
        tags,
        body: { type: 'object', additionalProperties: true },
        response: {
          201: jsonObject('The receiver', {
            receiver_id: { type: 'string' },
            endpoint_url: { type: 'string' },
            authorization_header: { type: 'string' },
          }),
          400: errorResponse,
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .header('cache-control', 'no-store')
        .send(await receivers.create(request.body)),
  );
  app.post(
    '/ssf/receiver/:id/events',
    {
      schema: {
        summary:
          'Push a SET to a receiver (RFC 8935): 202, or 400/401 with {err, description} and the same as {error, error_description}',
        tags,
        params: idParams,
        response: {
          202: { description: 'Accepted', type: 'null' },
          400: pushError,
          401: pushError,
          404: errorResponse,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const answer = await receivers.receive(
        id,
        request.headers.authorization,
        request.headers['content-type'],
        request.body,
      );
      if (answer.status === 202) return reply.code(202).send();
      return reply
        .code(answer.status)
        .header('content-type', 'application/json')
        .send(JSON.stringify(pushRefusal(answer.err, answer.description)));
    },
  );
  app.get(
    '/ssf/receivers/:id',
    {
      schema: {
        summary: 'A receiver and the last 100 SETs pushed to it, decoded, with verdicts (page, markdown, or JSON)',
        tags,
        params: idParams,
        response: { 200: jsonObject('The receiver and what it received'), 404: errorResponse },
      },
    },
    async (request, reply) => {
      const view = await receivers.view((request.params as { id: string }).id);
      if (wantsJson(request)) return reply.header('cache-control', 'no-store').send(view);
      return sendPage(request, reply, receiverPage(view));
    },
  );
}
