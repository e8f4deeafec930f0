import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StoredEvent } from '../../../services/event-log.ts';
import { accessTokenFromHeader } from '../../../services/oauth/authorization-header.ts';
import { insufficientScope, invalidTokenError } from '../../../services/oauth/protected-resources.ts';
import { AutomaticSignals } from '../../../services/ssf/automatic.ts';
import { ssfSettings } from '../../../services/ssf/configuration.ts';
import { SsfEmitter } from '../../../services/ssf/emit.ts';
import { SsfPoll } from '../../../services/ssf/poll.ts';
import { PushDelivery } from '../../../services/ssf/push.ts';
import { SsfReceivers } from '../../../services/ssf/receiver.ts';
import { Sealer } from '../../../services/ssf/sealed.ts';
import { SsfStreams } from '../../../services/ssf/streams.ts';
import { PerClientWindow } from '../../../services/ssf/client-window.ts';
import { isOwnReceiverEndpoint } from '../../../services/ssf/requests.ts';
import { oauthError } from '../../../services/errors.ts';
import { GuardedHttp } from '../../outbound/guarded-http.ts';
import { keyedFingerprint } from '../../../services/crypto/fingerprint.ts';
import type { MainContext } from '../main/context.ts';
import { ssfManagementRoutes } from './management-routes.ts';
import { ssfReceiverRoutes } from './receiver-routes.ts';

/** The scope of the management API. */
const SCOPE = 'ssf';

/** An exported stream never carries the push header, not even sealed. */
function withoutSealedHeader(event: StoredEvent): Record<string, unknown> {
  const delivery = event.data.delivery as Record<string, unknown> | undefined;
  if (!delivery || !('authorization_header_sealed' in delivery)) return event.data;
  const { authorization_header_sealed: _sealed, ...rest } = delivery;
  return { ...event.data, delivery: { ...rest, authorization_header: '[kept sealed]' } };
}

/**
 * The Shared Signals transmitter (OpenID SSF 1.0, docs/ssf.md): its configuration metadata, the stream
 * management API (a Bearer token of `{base}/oauth2` with scope `ssf`, each client its own streams),
 * poll delivery (RFC 8936) and the events a client may send itself to try each CAEP and RISC type.
 */
export async function ssfRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const base = ctx.config.baseUrl;
  const settings = ssfSettings(base, `${base}/oidc/jwks`);
  const sealer = new Sealer(ctx.keys.secret('ssf-push-header'));
  const streams = new SsfStreams({
    log: ctx.log,
    keys: ctx.keys,
    clock: ctx.clock,
    settings,
    sealer,
    live: ctx.liveSsfStreams,
    // Our origin only at a receiver's events path; every other destination through the outbound guard.
    vetEndpoint: async (url) => {
      if (new URL(url).origin !== new URL(base).origin) return ctx.outbound.vet(url);
      if (!isOwnReceiverEndpoint(url, base))
        throw oauthError(
          'destination_not_allowed',
          "This origin receives pushed SETs only at a receiver's events endpoint, /ssf/receiver/{id}/events",
        );
    },
  });
  const emitter = new SsfEmitter(streams, ctx.clock);
  const polling = new SsfPoll(streams, ctx.log, ctx.clock, settings.longPollMs);
  // The three events the service emits by itself, from facts its log records (docs/ssf.md).
  const automatic = new AutomaticSignals(ctx.log, emitter, {
    agentIssuer: `${base}/agentauth`,
    statusListUri: (listId) => ctx.credentialStatus.lists.tokenUri(listId),
    firstEvent: async (streamId) => (await ctx.log.readStream(streamId))[0],
    transactionOf: (streamId) => keyedFingerprint(ctx.keys.secret('ssf-txn'), streamId),
  });
  await automatic.start();
  ctx.onClose.push(() => automatic.stop());
  // Push delivery through an outbound guard of the same rules that also lets our own origin (its receiver) in.
  const pushGuard = new GuardedHttp({
    trustedOrigins: new Set([new URL(base).origin]),
    allowExternal: true,
    allowLoopback: ctx.config.outboundAllowLoopback,
  });
  const push = new PushDelivery(streams, ctx.log, pushGuard, sealer, ctx.clock);
  await push.start();
  ctx.onClose.push(async () => {
    push.stop();
    await pushGuard.close();
  });
  if (!ctx.oauthResource) throw new Error('the SSF routes need the OAuth server registered first');
  const resource = ctx.oauthResource();

  /** The calling client: a valid access token of `{base}/oauth2` with scope `ssf` (RFC 6750 §3.1). */
  async function clientOfHeader(
    header: string | undefined,
    proof: { dpop?: string | string[]; method: string; url: string },
  ): Promise<string> {
    if (!header) throw invalidTokenError('An access token with scope ssf is required');
    const presented = accessTokenFromHeader(header);
    if (!presented) throw invalidTokenError('The Authorization header is malformed');
    const claims = await resource.authorize({ ...presented, ...proof });
    if (!claims.scope.split(' ').includes(SCOPE)) throw insufficientScope(SCOPE);
    return claims.client_id;
  }
  // Each management call counts against its client too, not only its address (issue 45 item 36).
  const perClient = new PerClientWindow(ctx.config.rateLimitPerMinute, ctx.clock);
  const clientOf = async (request: FastifyRequest) => {
    const client = await clientOfHeader(request.headers.authorization, {
      dpop: request.headers.dpop,
      method: request.method,
      url: `${base}${request.url.split('?')[0]}`,
    });
    perClient.take(client);
    return client;
  };
  ssfManagementRoutes(app, { streams, emitter, polling, settings, clientOf });

  const receivers = new SsfReceivers({
    log: ctx.log,
    clock: ctx.clock,
    ownIssuer: base,
    ownJwks: () => ctx.keys.jwks('oidc'),
    outbound: ctx.outbound,
  });
  ssfReceiverRoutes(app, receivers);

  // Who may read the streams elsewhere (export, MCP): a stream's owner by token; a receiver by its id.
  const ownedStream = async (id: string, authorization: string | undefined) => {
    const client = await clientOfHeader(authorization, { method: 'GET', url: `${base}/ssf/streams` });
    return streams.owned(client, id);
  };
  ctx.streamReaders.register('ssf-stream', async (id, credentials) => {
    const owned = await ownedStream(id, credentials.authorization).catch(() => undefined);
    return owned && { data: withoutSealedHeader };
  });
  ctx.streamReaders.register('ssf-receiver', async (id) =>
    (await receivers.actors.get(id)).version > 0 ? {} : undefined,
  );
  ctx.ssf = {
    receiver: (id) => receivers.view(id),
    stream: async (id, authorization) => {
      const { snapshot } = await ownedStream(id, authorization);
      const c = snapshot.context;
      return {
        ...streams.view(id, c),
        status: snapshot.value,
        ...(c.reason ? { reason: c.reason } : {}),
        subjects: c.subjects.map((s) => s.subject),
        queued: c.pending.map((p) => p.jti),
        receiver_errors: c.errors,
      };
    },
  };

  Object.assign(ctx.apiEndpoints, {
    ssf_configuration: '/.well-known/ssf-configuration',
    ssf_receivers: '/ssf/receivers',
  });
}
