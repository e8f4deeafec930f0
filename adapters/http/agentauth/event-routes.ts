import type { FastifyInstance } from 'fastify';
import type { RevocationEntry } from '../../../projections/revocation-feed.ts';
import type { MainContext } from '../main/context.ts';
import { resumableQuery, resumeCursor } from '../sse.ts';
import { invalidTokenError } from '../../../services/oauth/protected-resources.ts';
import { bearerToken } from '../../../services/oauth/authorization-header.ts';

const LONG_POLL_MS = 25_000;

/** Revocation SETs: Server-Sent Events (resumable) and RFC 8936 poll delivery. */
export async function agentAuthEventRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const { securityEvents, pollDelivery } = ctx;
  const feed = securityEvents.feed;
  // Long polls end at shutdown instead of holding the server open.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());

  app.get(
    '/agentauth/events',
    {
      schema: {
        summary:
          'Revocation Security Event Tokens as Server-Sent Events; resume with Last-Event-ID or ?after=<sequence>',
        tags: ['agentauth'],
        querystring: resumableQuery,
      },
    },
    async (request, reply) => {
      let cursor = resumeCursor(request);
      // Live entries wait here while the backlog is read, so the stream stays in sequence order.
      let held: RevocationEntry[] | undefined = [];
      const listener = (entry: RevocationEntry) => (held ? held.push(entry) : send([entry]));
      const stream = ctx.sse.start(request, reply, () => feed.added.off('entry', listener));
      let sending = Promise.resolve();
      const send = (entries: RevocationEntry[]) => {
        sending = sending.then(async () => {
          for (const entry of entries) {
            if (stream.ended) return;
            if (entry.sequence <= cursor) continue;
            const jwt = await securityEvents.token(entry);
            cursor = entry.sequence;
            stream.send({ id: entry.sequence, event: 'set', data: jwt });
          }
        });
      };
      feed.added.on('entry', listener);
      for (
        let page = await feed.after(cursor, 500);
        page.length > 0 && !stream.ended;
        page = await feed.after(page[page.length - 1].sequence, 500)
      )
        send(page);
      const backlogDone = held;
      held = undefined;
      send(backlogDone);
    },
  );

  app.post(
    '/agentauth/events/poll',
    {
      schema: {
        summary: 'RFC 8936 poll delivery of revocation SETs for the bearer agent',
        tags: ['agentauth'],
        security: [{ bearer: [] }],
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            maxEvents: { type: 'integer', minimum: 0, maximum: 1000 },
            returnImmediately: { type: 'boolean' },
            ack: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 200 } },
            setErrs: {
              type: 'object',
              maxProperties: 1000,
              additionalProperties: {
                type: 'object',
                required: ['err', 'description'],
                properties: {
                  err: { type: 'string', maxLength: 200 },
                  description: { type: 'string', maxLength: 2000 },
                },
              },
            },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              sets: { type: 'object', additionalProperties: { type: 'string' } },
              moreAvailable: { type: 'boolean' },
            },
          },
          401: { $ref: 'OAuthError#' },
        },
      },
    },
    async (request) => {
      const token = bearerToken(request.headers.authorization);
      if (!token) throw invalidTokenError('An agent access token identifies the receiver');
      const claims = await ctx.agentAuth.tokens.verifyAccessToken(token, ctx.clock.now());
      if (!claims) throw invalidTokenError('The access token is invalid or expired');
      const body = (request.body ?? {}) as Parameters<typeof pollDelivery.poll>[1];
      const first = await pollDelivery.poll(claims.sub, body);
      if (Object.keys(first.sets).length > 0 || body.returnImmediately === true || body.maxEvents === 0) return first;
      // Long poll (RFC 8936 section 2.4): wait for the next revocation, or answer empty at the deadline.
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          feed.added.off('entry', done);
          request.raw.off('close', done);
          closing.signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, LONG_POLL_MS);
        feed.added.on('entry', done);
        request.raw.on('close', done);
        closing.signal.addEventListener('abort', done, { once: true });
      });
      return pollDelivery.pending(claims.sub, body.maxEvents ?? 100);
    },
  );
}
