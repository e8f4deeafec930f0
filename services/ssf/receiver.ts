import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JWK } from 'jose';
import { ssfReceiverMachine, type ReceivedSet } from '../../machines/ssf-receiver.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import { randomToken, sha256 } from '../crypto/random.ts';
import { sameText } from '../crypto/compare.ts';
import { decodeJwtClaims } from '../crypto/decode-jwt.ts';
import { notFound, oauthError } from '../errors.ts';
import { bearerToken } from '../oauth/authorization-header.ts';
import type { EventLog } from '../event-log.ts';
import type { OutboundHttp } from '../outbound.ts';
import { BoundedCache } from '../bounded-cache.ts';
import { objectBody } from './requests.ts';
import { SET_TYP } from './set.ts';

/** An RFC 8935 §2.3 answer to a push: 202, or an error `{err, description}` with its status. */
export type PushAnswer = { status: 202 } | { status: 400 | 401; err: string; description: string };

export interface ReceiverDeps {
  log: EventLog;
  clock: Clock;
  /** `{base}`: our own transmitter, whose keys are read in process. */
  ownIssuer: string;
  ownJwks: () => { keys: JWK[] };
  /** Another transmitter's metadata and keys, only through the outbound guard. */
  outbound: OutboundHttp;
}

const refuse = (err: string, description: string, status: 400 | 401 = 400): PushAnswer => ({
  status,
  err,
  description,
});

/**
 * Receivers a learner creates to watch the other end of a stream (RFC 8935): each checks the SETs
 * pushed to it (typ, signature by the transmitter's keys, iss, aud, jti replay), answers 202 or an
 * RFC 8935 error, and keeps the last 100 with their verdicts.
 */
/** How long another transmitter's keys are kept, and how long a failure to fetch them is. */
const FOREIGN_KEYS_MS = 300_000;
const FAILED_KEYS_MS = 60_000;

export class SsfReceivers {
  readonly actors: ActorRuntime<typeof ssfReceiverMachine>;
  /**
   * Other transmitters' keys, per transmitter: one fetch shared by concurrent pushes, kept 5 minutes, and
   * a failed fetch kept 1 minute, so pushes naming a transmitter cause at most one outbound fetch a
   * minute whatever their number (issue 45 item 36). Bounded, so transmitters cannot grow it for ever.
   */
  private readonly foreignKeys = new BoundedCache<string, { keys: Promise<JWK[]>; until: number }>(256);

  constructor(private readonly deps: ReceiverDeps) {
    this.actors = ActorRuntime.of(deps.log, ssfReceiverMachine, 'ssf-receiver');
  }

  /** `POST /ssf/receivers`: 201 with the endpoint and the header the transmitter must send. */
  async create(raw: unknown) {
    const body = objectBody(raw ?? {});
    if (typeof body.audience !== 'string' || body.audience.length === 0 || body.audience.length > 256)
      throw oauthError('invalid_request', "audience is required: the aud the SETs must carry (the stream's client id)");
    let transmitter = this.deps.ownIssuer;
    if (body.transmitter !== undefined) {
      if (typeof body.transmitter !== 'string' || !/^https?:\/\/[^\s#?]+$/.test(body.transmitter))
        throw oauthError('invalid_request', 'transmitter must be an issuer URL without query or fragment');
      transmitter = body.transmitter.replace(/\/$/, '');
    }
    const id = randomToken(12);
    const secret = randomToken(24);
    await this.actors.create(id, {
      type: 'ssf_receiver.created',
      at: this.deps.clock.now(),
      transmitter,
      audience: body.audience,
      auth_hash: sha256(secret),
    });
    return {
      receiver_id: id,
      endpoint_url: `${this.deps.ownIssuer}/ssf/receiver/${id}/events`,
      authorization_header: `Bearer ${secret}`,
      transmitter,
      audience: body.audience,
    };
  }

  /** RFC 8935 §2: one push, judged and recorded. */
  async receive(
    id: string,
    authorization: string | undefined,
    contentType: string | undefined,
    body: unknown,
  ): Promise<PushAnswer> {
    const receiver = await this.actors.get(id);
    if (receiver.version === 0) throw notFound('No such receiver');
    const c = receiver.snapshot.context;
    const secret = bearerToken(authorization);
    if (!secret || !sameText(sha256(secret), c.authHash))
      return refuse('authentication_failed', 'The Authorization header is not the one this receiver gave', 401);
    const judged = await this.judge(c, contentType, body);
    const record: ReceivedSet = {
      at: this.deps.clock.now(),
      ...(judged.jti ? { jti: judged.jti } : {}),
      verdict: judged.answer.status === 202 ? 'accepted' : 'refused',
      ...(judged.answer.status !== 202 ? { err: judged.answer.err, description: judged.answer.description } : {}),
      ...(judged.claims ? { claims: judged.claims } : {}),
    };
    await this.actors.execute(id, { type: 'ssf_receiver.received', ...record });
    return judged.answer;
  }

  private async judge(
    c: { transmitter: string; audience: string; accepted: string[] },
    contentType: string | undefined,
    body: unknown,
  ): Promise<{ answer: PushAnswer; jti?: string; claims?: Record<string, unknown> }> {
    if (
      (contentType ?? '').split(';')[0].trim().toLowerCase() !== 'application/secevent+jwt' ||
      typeof body !== 'string'
    )
      return { answer: refuse('invalid_request', 'A SET is pushed as application/secevent+jwt (RFC 8935 §2)') };
    const jwt = body.trim();
    let claims: Record<string, unknown>;
    let typ: unknown;
    try {
      typ = decodeProtectedHeader(jwt).typ;
      claims = decodeJwtClaims(jwt);
    } catch {
      return { answer: refuse('invalid_request', 'The body is not a JWT') };
    }
    const jti = typeof claims.jti === 'string' ? claims.jti : undefined;
    const verdict = (answer: PushAnswer) => ({ answer, jti, claims });
    if (typ !== SET_TYP) return verdict(refuse('invalid_request', `typ must be ${SET_TYP} (RFC 8417 §2.3)`));
    try {
      await compactVerify(jwt, createLocalJWKSet(await this.keysOf(c.transmitter)), {
        algorithms: ['ES256', 'RS256', 'EdDSA'],
      });
    } catch {
      return verdict(refuse('invalid_key', "The signature does not verify with the transmitter's keys"));
    }
    if (claims.iss !== c.transmitter) return verdict(refuse('invalid_issuer', `iss must be ${c.transmitter}`));
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.includes(c.audience)) return verdict(refuse('invalid_audience', `aud must include ${c.audience}`));
    if (!jti) return verdict(refuse('invalid_request', 'The SET has no jti'));
    if (c.accepted.includes(jti)) return verdict(refuse('invalid_request', 'This jti was already received (replay)'));
    return verdict({ status: 202 });
  }

  /** Our keys in process; another transmitter's from its SSF metadata's jwks_uri, through the guard (cached above). */
  private async keysOf(transmitter: string): Promise<{ keys: JWK[] }> {
    if (transmitter === this.deps.ownIssuer) return this.deps.ownJwks();
    const now = this.deps.clock.now();
    const cached = this.foreignKeys.get(transmitter);
    if (cached && cached.until > now) return { keys: await cached.keys };
    const entry = { keys: this.fetchKeys(transmitter), until: now + FOREIGN_KEYS_MS };
    this.foreignKeys.set(transmitter, entry);
    entry.keys.catch(() => (entry.until = this.deps.clock.now() + FAILED_KEYS_MS));
    return { keys: await entry.keys };
  }

  private async fetchKeys(transmitter: string): Promise<JWK[]> {
    const url = new URL(transmitter);
    const metadata = await this.deps.outbound.send(
      `${url.origin}/.well-known/ssf-configuration${url.pathname === '/' ? '' : url.pathname}`,
    );
    const jwksUri = (JSON.parse(metadata.body.toString('utf8')) as { jwks_uri?: unknown }).jwks_uri;
    if (typeof jwksUri !== 'string') throw new Error('no jwks_uri');
    return (
      (JSON.parse((await this.deps.outbound.send(jwksUri)).body.toString('utf8')) as { keys?: JWK[] }).keys ?? []
    ).filter((k) => k && typeof k === 'object');
  }

  /** `GET /ssf/receivers/{id}`: the receiver and its last SETs, newest first, decoded, with verdicts. */
  async view(id: string) {
    const receiver = await this.actors.get(id);
    if (receiver.version === 0) throw notFound('No such receiver');
    const c = receiver.snapshot.context;
    return {
      receiver_id: id,
      endpoint_url: `${this.deps.ownIssuer}/ssf/receiver/${id}/events`,
      transmitter: c.transmitter,
      audience: c.audience,
      received: [...c.received].reverse().map((r) => ({
        at: new Date(r.at).toISOString(),
        ...(r.jti ? { jti: r.jti } : {}),
        verdict: r.verdict,
        ...(r.err ? { err: r.err, description: r.description } : {}),
        ...(r.claims
          ? { event_types: Object.keys((r.claims.events as object) ?? {}), sub_id: r.claims.sub_id, claims: r.claims }
          : {}),
      })),
    };
  }
}
