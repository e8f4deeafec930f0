import type { Config } from '../../config.ts';
import type { Clock } from '../../../services/clock.ts';
import type { EventLog, StoredEvent } from '../../../services/event-log.ts';
import type { KeyRing } from '../../../services/keys.ts';
import type { LiveSsfStreams } from '../../../projections/live-ssf-streams.ts';
import type { StatusLists } from '../../../services/status/lists.ts';
import type { StreamReaders } from '../../../services/streams/readers.ts';
import type { ResourceGuard } from '../../../services/oauth/resource-guard.ts';
import type { AccessTokenClaims } from '../../../services/oauth/tokens.ts';
import { AutomaticSignals } from '../../../services/ssf/automatic.ts';
import { ssfSettings, type SsfSettings } from '../../../services/ssf/configuration.ts';
import { SsfEmitter } from '../../../services/ssf/emit.ts';
import { SsfPoll } from '../../../services/ssf/poll.ts';
import { PushDelivery } from '../../../services/ssf/push.ts';
import { SsfReceivers } from '../../../services/ssf/receiver.ts';
import { Sealer } from '../../../services/ssf/sealed.ts';
import { SsfStreams } from '../../../services/ssf/streams.ts';
import { memoryWindowCounter, PerClientWindow } from '../../../services/ssf/client-window.ts';
import { sharedWindowCounter } from '../../store/shared-window-counter.ts';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { isOwnReceiverEndpoint } from '../../../services/ssf/requests.ts';
import { oauthError } from '../../../services/errors.ts';
import { keyedFingerprint } from '../../../services/crypto/fingerprint.ts';
import { GuardedHttp } from '../../outbound/guarded-http.ts';
import type { ClientPlaces } from '../../../services/places/client-places.ts';

/** What a management call presents: its `Authorization` and DPoP headers, method and URL. */
interface SsfCall {
  authorization: string | undefined;
  dpop?: string | string[];
  method: string;
  url: string;
}

/** The Shared Signals transmitter and receivers (OpenID SSF 1.0, docs/ssf.md), as services. */
export interface SsfPart {
  settings: SsfSettings;
  streams: SsfStreams;
  emitter: SsfEmitter;
  polling: SsfPoll;
  receivers: SsfReceivers;
  /** The calling client: a valid access token of `{base}/oauth2` with scope `ssf`, counted per client too. */
  clientOf(call: SsfCall): Promise<string>;
  /** A stream as its owner reads it elsewhere (MCP). */
  stream(id: string, authorization: string | undefined): Promise<object>;
  /** A receiver's view, by its id (MCP). */
  receiver(id: string): Promise<object>;
}

/** An exported stream never carries the push header, not even sealed. */
function withoutSealedHeader(event: StoredEvent): Record<string, unknown> {
  const delivery = event.data.delivery as Record<string, unknown> | undefined;
  if (!delivery || !('authorization_header_sealed' in delivery)) return event.data;
  const { authorization_header_sealed: _sealed, ...rest } = delivery;
  return { ...event.data, delivery: { ...rest, authorization_header: '[kept sealed]' } };
}

export interface SsfWorkers {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The transmitter's services, its two workers (automatic signals, push delivery) and its stream readers. */
export function buildSsf(
  config: Config,
  shared: {
    log: EventLog;
    keys: KeyRing;
    clock: Clock;
    live: LiveSsfStreams;
    places: ClientPlaces;
    /** The rate-limit store instances share (PostgreSQL), when there is one. */
    rateLimits?: FastifyRateLimitStoreCtor;
    statusLists: StatusLists;
    outbound: GuardedHttp;
    /** `{base}/oauth2`'s tokens with scope `ssf` (graph.ts). */
    guard: ResourceGuard<AccessTokenClaims, string>;
    streamReaders: StreamReaders;
  },
): { part: SsfPart; workers: SsfWorkers } {
  const base = config.baseUrl;
  const { log, keys, clock, outbound, guard } = shared;
  const settings = ssfSettings(base, `${base}/oidc/jwks`);
  const sealer = new Sealer(keys.secret('ssf-push-header'));
  const streams = new SsfStreams({
    log,
    keys,
    clock,
    settings,
    sealer,
    live: shared.live,
    places: shared.places,
    // Our origin only at a receiver's events path; every other destination through the outbound guard.
    vetEndpoint: async (url) => {
      if (new URL(url).origin !== new URL(base).origin) return outbound.vet(url);
      if (!isOwnReceiverEndpoint(url, base))
        throw oauthError(
          'destination_not_allowed',
          "This origin receives pushed SETs only at a receiver's events endpoint, /ssf/receiver/{id}/events",
        );
    },
  });
  const emitter = new SsfEmitter(streams, clock);
  // The three events the service emits by itself, from facts its log records (docs/ssf.md).
  const automatic = new AutomaticSignals(log, emitter, {
    agentIssuer: `${base}/agentauth`,
    scimBase: `${base}/scim/v2`,
    statusListUri: (listId) => shared.statusLists.tokenUri(listId),
    firstEvent: async (streamId) => (await log.readStream(streamId))[0],
    transactionOf: (streamId) => keyedFingerprint(keys.secret('ssf-txn'), streamId),
  });
  // Push delivery through an outbound guard of the same rules that also lets our own origin (its receiver) in.
  const pushGuard = new GuardedHttp({
    trustedOrigins: new Set([new URL(base).origin]),
    allowExternal: true,
    allowLoopback: config.outboundAllowLoopback,
  });
  const push = new PushDelivery(streams, log, pushGuard, sealer, clock);

  /** A valid access token of `{base}/oauth2` with scope `ssf` (RFC 6750 §3.1): its client. */
  const clientOfToken = async (call: SsfCall) => (await guard.admit(call)).claims.client_id;
  // Each management call counts against its client too, not only its address (issue 45 item 36).
  const perClient = new PerClientWindow(
    config.rateLimitPerMinute,
    shared.rateLimits ? sharedWindowCounter(shared.rateLimits) : memoryWindowCounter(clock),
  );
  const receivers = new SsfReceivers({
    log,
    clock,
    ownIssuer: base,
    ownJwks: () => keys.jwks('oidc'),
    outbound,
  });

  // Who may read the streams elsewhere (export, MCP): a stream's owner by token; a receiver by its id.
  const ownedStream = async (id: string, authorization: string | undefined) =>
    streams.owned(await clientOfToken({ authorization, method: 'GET', url: `${base}/ssf/streams` }), id);
  shared.streamReaders.register('ssf-stream', async (id, credentials) => {
    const owned = await ownedStream(id, credentials.authorization).catch(() => undefined);
    return owned && { data: withoutSealedHeader };
  });
  shared.streamReaders.register('ssf-receiver', async (id) =>
    (await receivers.actors.get(id)).version > 0 ? {} : undefined,
  );

  const part: SsfPart = {
    settings,
    streams,
    emitter,
    polling: new SsfPoll(streams, log, clock, settings.longPollMs),
    receivers,
    clientOf: async (call) => {
      const client = await clientOfToken(call);
      await perClient.take(client);
      return client;
    },
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
  const workers: SsfWorkers = {
    start: async () => {
      await automatic.start();
      await push.start();
    },
    stop: async () => {
      await automatic.stop();
      push.stop();
      await pushGuard.close();
    },
  };
  return { part, workers };
}
