import { oauthError } from '../errors.ts';
import { EVENTS_SUPPORTED } from './event-types.ts';
import { POLL, PUSH } from './configuration.ts';

/** The checks of management request bodies (SSF 1.0 §8): each a named rule, 400 `invalid_request` when broken. */

export type Body = Record<string, unknown>;
const bad = (description: string) => oauthError('invalid_request', description);

export function objectBody(body: unknown): Body {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad('The body must be a JSON object');
  return body as Body;
}

export function streamIdOf(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(value)) throw bad('stream_id is required');
  return value;
}

/** `events_requested`: URIs; those this transmitter does not know are ignored (SSF 1.0 §8.1.1). */
export function eventsRequested(value: unknown): string[] {
  if (!Array.isArray(value) || value.length > 64 || !value.every((v) => typeof v === 'string' && v.length <= 256))
    throw bad('events_requested must be an array of event type URIs');
  return [...new Set(value as string[])];
}

export const eventsDelivered = (requested: readonly string[]) =>
  EVENTS_SUPPORTED.filter((uri) => requested.includes(uri));

export function description(value: unknown): string {
  if (typeof value !== 'string' || value.length > 256)
    throw bad('description must be a string of at most 256 characters');
  return value;
}

export interface RequestedDelivery {
  method: typeof PUSH | typeof POLL;
  endpoint_url?: string;
  authorization_header?: string;
}

/**
 * Our own origin is a push destination only at a receiver's events endpoint
 * (`{base}/ssf/receiver/{id}/events`, no query): a stream must not make us POST to any other path of ours.
 */
export function isOwnReceiverEndpoint(endpoint: string, base: string): boolean {
  const url = new URL(endpoint);
  const own = new URL(base);
  if (url.origin !== own.origin || url.search) return false;
  const prefix = own.pathname.replace(/\/$/, '');
  return (
    url.pathname.startsWith(`${prefix}/ssf/receiver/`) &&
    /^\/[A-Za-z0-9_-]{1,64}\/events$/.test(url.pathname.slice(prefix.length + '/ssf/receiver'.length))
  );
}

/** `delivery`: push needs an endpoint_url; poll's endpoint is ours; absent means poll (SSF 1.0 §8.1.1.1). */
export function delivery(value: unknown): RequestedDelivery {
  if (value === undefined) return { method: POLL };
  const d = objectBody(value);
  if (d.method !== PUSH && d.method !== POLL) throw bad(`delivery.method must be ${PUSH} or ${POLL}`);
  if (d.method === POLL) return { method: POLL };
  if (typeof d.endpoint_url !== 'string' || d.endpoint_url.length > 2048) throw bad('push delivery needs endpoint_url');
  let url: URL;
  try {
    url = new URL(d.endpoint_url);
  } catch {
    throw bad('delivery.endpoint_url is not a URL');
  }
  if (url.hash || url.username || url.password) throw bad('delivery.endpoint_url has a fragment or userinfo');
  if (
    d.authorization_header !== undefined &&
    (typeof d.authorization_header !== 'string' ||
      d.authorization_header.length > 4096 ||
      /[\r\n]/.test(d.authorization_header))
  )
    throw bad('delivery.authorization_header must be one header value');
  return {
    method: PUSH,
    endpoint_url: url.href,
    ...(d.authorization_header !== undefined ? { authorization_header: d.authorization_header as string } : {}),
  };
}

/** `status`: one of the three (SSF 1.0 §8.1.2.2); `reason` a short text. */
export function statusChange(body: Body): { status: 'enabled' | 'paused' | 'disabled'; reason?: string } {
  const status = body.status;
  if (status !== 'enabled' && status !== 'paused' && status !== 'disabled')
    throw bad('status must be enabled, paused or disabled');
  if (body.reason !== undefined && (typeof body.reason !== 'string' || body.reason.length > 256))
    throw bad('reason must be a string of at most 256 characters');
  return { status, ...(typeof body.reason === 'string' ? { reason: body.reason } : {}) };
}
