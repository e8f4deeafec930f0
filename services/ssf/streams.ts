import {
  ssfStreamMachine,
  type SsfDelivery,
  type SsfStreamContext,
  type SsfStreamEvent,
  ssfStreamStates,
  hasStatus,
} from '../../machines/ssf-stream.ts';
import { ActorRuntime, type Loaded } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import { randomToken } from '../crypto/random.ts';
import { notFound, oauthError } from '../errors.ts';
import type { EventLog } from '../event-log.ts';
import type { KeyRing } from '../keys.ts';
import { POLL, type SsfSettings } from './configuration.ts';
import { EVENTS_SUPPORTED, STREAM_UPDATED, VERIFICATION } from './event-types.ts';
import * as rules from './requests.ts';
import type { ClientPlaces, PlaceRule } from '../places/client-places.ts';
import { streamPlaces } from './stream-places.ts';
import type { Sealer } from './sealed.ts';
import { issuedSet, type SetEvent } from './set.ts';
import { subjectFault, subjectKey } from './subjects.ts';

type Stream = Loaded<typeof ssfStreamMachine>;
type SetIssued = Extract<SsfStreamEvent, { type: 'ssf.set_issued' }>;

export interface SsfDeps {
  log: EventLog;
  keys: KeyRing;
  clock: Clock;
  settings: SsfSettings;
  sealer: Sealer;
  /** Per-client limits decided in the log: a client's live streams. */
  places: ClientPlaces;
  /** Refuses a push endpoint the outbound guard would refuse, before anything is stored. */
  vetEndpoint(url: string): Promise<void>;
  /** The live streams' ids, from a read model (projections/live-ssf-streams.ts), oldest first. */
  live: {
    all(): Promise<string[]>;
    ofClient(clientId: string): Promise<string[]>;
    receiving(eventType: string, clientId?: string): Promise<string[]>;
  };
}

/**
 * The transmitter's streams (SSF 1.0 §8): each an `ssf-stream:<id>` actor. A client sees and changes
 * only its own streams; any other id, deleted or not, is 404 to it.
 */
export class SsfStreams {
  readonly actors: ActorRuntime<typeof ssfStreamMachine>;

  /** A client's places: each live stream holds one; a deleted or never-created stream holds none. */
  private readonly streamPlaces: PlaceRule;

  constructor(private readonly deps: SsfDeps) {
    this.actors = ActorRuntime.of(deps.log, ssfStreamMachine, 'ssf-stream');
    this.streamPlaces = streamPlaces(deps.settings.maxStreamsPerClient, deps.live, this.actors);
  }

  private now(): number {
    return this.deps.clock.now();
  }

  /** The stream configuration as the management API shows it (SSF 1.0 §8.1.1); the push header never. */
  view(streamId: string, c: SsfStreamContext) {
    return {
      stream_id: streamId,
      iss: this.deps.settings.issuer,
      aud: c.clientId,
      events_supported: EVENTS_SUPPORTED,
      events_requested: c.eventsRequested,
      events_delivered: c.eventsDelivered,
      delivery: { method: c.delivery?.method, endpoint_url: c.delivery?.endpoint_url },
      min_verification_interval: this.deps.settings.minVerificationInterval,
      ...(c.description !== undefined ? { description: c.description } : {}),
    };
  }

  /** A stream of this client's, live; 404 otherwise (SSF 1.0 §8.1.1.2). */
  async owned(clientId: string, streamId: string): Promise<Stream> {
    const stream = await this.actors.get(streamId);
    if (
      stream.version === 0 ||
      ssfStreamStates.deleted(stream.snapshot) ||
      stream.snapshot.context.clientId !== clientId
    )
      throw notFound('This client has no stream with this stream_id');
    return stream;
  }

  /** Every live stream, oldest first: only those the read model lists are loaded, never every stream ever made. */
  async all(): Promise<Array<{ id: string; stream: Stream }>> {
    return this.loaded(await this.deps.live.all());
  }

  /** The live streams of a client, oldest first. */
  async ofClient(clientId: string): Promise<Array<{ id: string; stream: Stream }>> {
    return this.loaded(await this.deps.live.ofClient(clientId));
  }

  /** The live streams, not disabled, that deliver `eventType` (of one client, when named): an emission's candidates. */
  async receiving(eventType: string, clientId?: string): Promise<Array<{ id: string; stream: Stream }>> {
    return this.loaded(await this.deps.live.receiving(eventType, clientId));
  }

  private async loaded(ids: string[]): Promise<Array<{ id: string; stream: Stream }>> {
    const found = [];
    for (const id of ids) {
      const stream = await this.actors.get(id);
      if (stream.version > 0 && !ssfStreamStates.deleted(stream.snapshot)) found.push({ id, stream });
    }
    return found;
  }

  private async deliveryOf(streamId: string, requested: rules.RequestedDelivery): Promise<SsfDelivery> {
    if (requested.method === POLL)
      return { method: POLL, endpoint_url: `${this.deps.settings.issuer}/ssf/poll/${streamId}` };
    await this.deps.vetEndpoint(requested.endpoint_url!);
    return {
      method: requested.method,
      endpoint_url: requested.endpoint_url!,
      ...(requested.authorization_header !== undefined
        ? { authorization_header_sealed: this.deps.sealer.seal(requested.authorization_header) }
        : {}),
    };
  }

  /**
   * `POST /ssf/streams` (SSF 1.0 §8.1.1.1): 201 with the configuration; a client holds at most five.
   * The new stream takes one of the client's places first (services/places/client-places.ts: one turn
   * of the log, so concurrent requests, on any instance, cannot both take the last place).
   */
  async create(clientId: string, raw: unknown): Promise<ReturnType<SsfStreams['view']>> {
    const body = rules.objectBody(raw);
    const requested = body.events_requested === undefined ? [] : rules.eventsRequested(body.events_requested);
    const description = body.description === undefined ? undefined : rules.description(body.description);
    const deliveryRequest = rules.delivery(body.delivery);
    const streamId = randomToken(16);
    if (!(await this.deps.places.take(this.streamPlaces, clientId, streamId)))
      throw oauthError(
        'invalid_request:forbidden',
        `A client may hold at most ${this.deps.settings.maxStreamsPerClient} streams; delete one first`,
      );
    try {
      const outcome = await this.actors.create(streamId, {
        type: 'ssf.stream_created',
        at: this.now(),
        client_id: clientId,
        delivery: await this.deliveryOf(streamId, deliveryRequest),
        events_requested: requested,
        events_delivered: rules.eventsDelivered(requested),
        ...(description !== undefined ? { description } : {}),
      });
      return this.view(streamId, outcome.snapshot.context);
    } catch (error) {
      await this.deps.places.release(this.streamPlaces, clientId, streamId);
      throw error;
    }
  }

  /** `PATCH` (update) and `PUT` (replace) `/ssf/streams` (SSF 1.0 §8.1.1.3, §8.1.1.4). */
  async update(clientId: string, raw: unknown, replace: boolean) {
    const body = rules.objectBody(raw);
    const streamId = rules.streamIdOf(body.stream_id);
    const current = await this.owned(clientId, streamId);
    this.requireTransmitterValues(body, streamId, current.snapshot.context);
    const has = (name: string) => body[name] !== undefined;
    const requested = has('events_requested') ? rules.eventsRequested(body.events_requested) : replace ? [] : undefined;
    const deliveryRequest = has('delivery') || replace ? rules.delivery(body.delivery) : undefined;
    const outcome = await this.actors.execute(streamId, {
      type: 'ssf.stream_updated',
      at: this.now(),
      ...(requested !== undefined
        ? { events_requested: requested, events_delivered: rules.eventsDelivered(requested) }
        : {}),
      ...(deliveryRequest ? { delivery: await this.deliveryOf(streamId, deliveryRequest) } : {}),
      ...(has('description')
        ? { description: rules.description(body.description) }
        : replace
          ? { description: null }
          : {}),
    });
    if (!outcome.accepted) throw notFound('This client has no stream with this stream_id');
    return this.view(streamId, outcome.snapshot.context);
  }

  /** SSF 1.0 §8.1.1.3: transmitter-supplied values may be sent, but only as they are. */
  private requireTransmitterValues(body: rules.Body, streamId: string, c: SsfStreamContext) {
    const expected = this.view(streamId, c) as Record<string, unknown>;
    for (const name of ['iss', 'aud', 'events_supported', 'events_delivered', 'min_verification_interval'])
      if (body[name] !== undefined && JSON.stringify(body[name]) !== JSON.stringify(expected[name]))
        throw oauthError('invalid_request', `${name} is set by the transmitter and must match its value`);
  }

  async remove(clientId: string, streamId: string) {
    await this.owned(clientId, streamId);
    await this.actors.execute(streamId, { type: 'ssf.stream_deleted', at: this.now() });
    await this.deps.places.release(this.streamPlaces, clientId, streamId);
  }

  async status(clientId: string, streamId: string) {
    const { snapshot } = await this.owned(clientId, streamId);
    return {
      stream_id: streamId,
      status: snapshot.value as string,
      ...(snapshot.context.reason ? { reason: snapshot.context.reason } : {}),
    };
  }

  /**
   * `POST /ssf/status` (SSF 1.0 §8.1.2.2): every change also makes a stream-updated SET (§8.1.5),
   * queued before a stream stops and after it starts again.
   */
  async setStatus(clientId: string, raw: unknown) {
    const body = rules.objectBody(raw);
    const streamId = rules.streamIdOf(body.stream_id);
    const change = rules.statusChange(body);
    const current = await this.owned(clientId, streamId);
    if (hasStatus(current.snapshot, change.status) && current.snapshot.context.reason === change.reason)
      return this.status(clientId, streamId);
    await this.changeStatus(streamId, current.snapshot.context.clientId, change);
    return this.status(clientId, streamId);
  }

  /** A status change, by the receiver or by the transmitter itself, with its stream-updated SET (SSF 1.0 §8.1.5). */
  async changeStatus(
    streamId: string,
    clientId: string,
    change: { status: 'enabled' | 'paused' | 'disabled'; reason?: string },
  ) {
    const at = this.now();
    const notice = await this.controlSet(
      streamId,
      clientId,
      STREAM_UPDATED,
      { status: change.status, ...(change.reason ? { reason: change.reason } : {}) },
      at,
    );
    const statusEvent: SsfStreamEvent = { type: 'ssf.status_changed', at, ...change };
    const events = change.status === 'enabled' ? [statusEvent, notice] : [notice, statusEvent];
    const outcome = await this.actors.execute(streamId, () => events);
    if (!outcome.accepted) throw notFound('This client has no stream with this stream_id');
  }

  /** `POST /ssf/subjects:add` and `:remove` (SSF 1.0 §8.1.3.2, §8.1.3.3): 200 with an empty body. */
  async subject(clientId: string, raw: unknown, add: boolean): Promise<void> {
    const body = rules.objectBody(raw);
    const streamId = rules.streamIdOf(body.stream_id);
    const fault = subjectFault(body.subject);
    if (fault) throw oauthError('invalid_request', fault);
    if (body.verified !== undefined && typeof body.verified !== 'boolean')
      throw oauthError('invalid_request', 'verified must be a boolean');
    await this.owned(clientId, streamId);
    const subject = body.subject as Record<string, unknown>;
    const key = subjectKey(subject);
    const outcome = await this.actors.execute(
      streamId,
      add
        ? { type: 'ssf.subject_added', at: this.now(), key, subject, verified: body.verified !== false }
        : { type: 'ssf.subject_removed', at: this.now(), key },
    );
    // Adding a subject twice changes nothing; removing one the stream does not have is 404 (§8.1.3.3).
    if (!outcome.accepted && !add) throw notFound('This stream has no such subject');
  }

  /** `POST /ssf/verify` (SSF 1.0 §8.1.4.2): a verification SET; more often than the interval is 429. */
  async verify(clientId: string, raw: unknown): Promise<void> {
    const body = rules.objectBody(raw);
    const streamId = rules.streamIdOf(body.stream_id);
    if (body.state !== undefined && (typeof body.state !== 'string' || body.state.length > 256))
      throw oauthError('invalid_request', 'state must be a string of at most 256 characters');
    const current = await this.owned(clientId, streamId);
    const at = this.now();
    const last = current.snapshot.context.lastVerificationAt;
    // Spec §7: no Retry-After header anywhere; the description says when to try again.
    if (last !== undefined && at - last < this.deps.settings.minVerificationInterval * 1000)
      throw oauthError(
        'rate_limited',
        `Verification is allowed once every ${this.deps.settings.minVerificationInterval} s (min_verification_interval); retry in ${Math.ceil((last + this.deps.settings.minVerificationInterval * 1000 - at) / 1000)} s`,
      );
    const set = await this.controlSet(
      streamId,
      clientId,
      VERIFICATION,
      body.state !== undefined ? { state: body.state } : {},
      at,
    );
    await this.actors.execute(streamId, { ...set, verification: true });
  }

  /** A stream control SET: about the stream itself (`sub_id` opaque stream id, SSF 1.0 §8.1.4.1). */
  private controlSet(streamId: string, clientId: string, type: string, body: Record<string, unknown>, at: number) {
    return this.setFor(clientId, { type, body, subject: { format: 'opaque', id: streamId }, control: true }, at);
  }

  /** One SET for one stream's receiver (`aud` its client), signed with the origin's key, as its `set_issued` event. */
  setFor(clientId: string, event: SetEvent, at: number): Promise<SetIssued> {
    return issuedSet(this.deps.settings.issuer, this.deps.keys.signing('oidc', 'ES256'), clientId, event, at);
  }
}
