import { BoundedCache } from '../bounded-cache.ts';
import type { Clock } from '../clock.ts';
import { STATUS_INVALID, STATUS_SUSPENDED, statusAt, statusTypeName } from '../credentials/status-list/bits.ts';
import { bitstringStatus, verifyBitstringListCredential } from '../credentials/status-list/bitstring-credential.ts';
import { STATUS_LIST_CWT_MEDIA, STATUS_LIST_JWT_MEDIA } from '../credentials/status-list/token.ts';
import {
  verifyStatusListCwt,
  verifyStatusListJwt,
  type StatusListKeyResolver,
} from '../credentials/status-list/verify-token.ts';
import { CheckTrail } from '../credentials/result.ts';
import { StatusListUnavailable, type StatusListSource } from './source.ts';

/** A credential's pointer into a status list. */
export type StatusReference =
  { kind: 'token'; uri: string; idx: number } | { kind: 'bitstring'; purpose: string; url: string; idx: number };

/** The check a status failure is reported as. */
type StatusFailure = 'credential_revoked' | 'credential_suspended' | 'status_unavailable';

/** What one reference resolved to, and how. */
export interface StatusOutcome {
  reference: StatusReference;
  /** The list checks that held, in order (`status_list_typ`, `status_list_signature`, …). */
  held: string[];
  /** The status value, when the list could be read. */
  value?: number;
  /** Its registered name (`VALID`, `INVALID`, `SUSPENDED`, …). */
  status?: string;
  failure?: { check: StatusFailure; reason: string };
  /** The list came from this checker's cache (within its ttl). */
  cached: boolean;
  /** When the list in use was resolved, milliseconds since the epoch. */
  resolvedAt: number;
}

/** Whom lists must be signed by: the keys trusted for the issuer (Token Status Lists) and its DIDs (W3C). */
export interface StatusTrust {
  keyFor: StatusListKeyResolver;
  w3cIssuers: () => readonly string[];
}

interface CachedList {
  /** Value at an index, or undefined beyond the list. */
  valueAt: (idx: number) => number | undefined;
  held: string[];
  resolvedAt: number;
  until: number;
}

/** When no ttl is given, a list is kept this long (and never past its `exp`). */
const DEFAULT_TTL_S = 300;
/** A list's ttl is honoured up to a day (draft-ietf-oauth-status-list §12.5: values within reason). */
const MAX_TTL_S = 86_400;

const urlOf = (r: StatusReference) => (r.kind === 'token' ? r.uri : r.url);
/** The bitstring's 1 means the purpose's status. */
const bitstringValue = (purpose: string, bit: number) =>
  bit === 0 ? 0 : purpose === 'suspension' ? STATUS_SUSPENDED : STATUS_INVALID;

/**
 * Resolves credentials' status references (draft-ietf-oauth-status-list §8.3, Bitstring Status List
 * §3.2): fetch the list, check its type, signature, subject and expiry, then read the index. A list
 * that cannot be had or checked fails closed (`status_unavailable`); a verified list is kept for its
 * `ttl` (bounded, and never past `exp`), so repeated checks cost one lookup.
 */
export class StatusChecker {
  private readonly cache = new BoundedCache<string, CachedList>(256);

  constructor(
    private readonly source: StatusListSource,
    private readonly trust: StatusTrust,
    private readonly clock: Clock,
  ) {}

  async check(reference: StatusReference): Promise<StatusOutcome> {
    const now = this.clock.now();
    const key = urlOf(reference);
    let list = this.cache.get(key);
    const cached = list !== undefined && list.until > now;
    if (!cached) {
      const resolved = await this.resolve(reference, now);
      if ('failure' in resolved)
        return {
          reference,
          held: resolved.held,
          failure: { check: 'status_unavailable', reason: resolved.failure },
          cached: false,
          resolvedAt: now,
        };
      list = resolved;
      this.cache.set(key, list);
    }
    return this.outcome(reference, list!, cached);
  }

  private outcome(reference: StatusReference, list: CachedList, cached: boolean): StatusOutcome {
    const base = { reference, held: list.held, cached, resolvedAt: list.resolvedAt };
    const value = list.valueAt(reference.idx);
    if (value === undefined)
      return {
        ...base,
        failure: { check: 'status_unavailable', reason: `index ${reference.idx} is outside the list` },
      };
    const status = statusTypeName(value);
    const found = { ...base, value, status, held: [...list.held, 'status_value'] };
    if (value === 0) return found;
    if (value === STATUS_INVALID)
      return { ...base, value, status, failure: { check: 'credential_revoked', reason: 'the issuer revoked it' } };
    if (value === STATUS_SUSPENDED)
      return { ...base, value, status, failure: { check: 'credential_suspended', reason: 'the issuer suspended it' } };
    return {
      ...base,
      value,
      status,
      failure: { check: 'status_unavailable', reason: `status ${status} is not one this verifier knows` },
    };
  }

  private async resolve(
    reference: StatusReference,
    now: number,
  ): Promise<CachedList | { failure: string; held: string[] }> {
    const nowS = Math.floor(now / 1000);
    const url = urlOf(reference);
    // A Token Status List may come as a JWT or a CWT (§8.2): either is verified before its bits are believed.
    const accept =
      reference.kind === 'token' ? `${STATUS_LIST_JWT_MEDIA}, ${STATUS_LIST_CWT_MEDIA};q=0.9` : 'application/vc+jwt';
    let fetched: { contentType: string; body: Buffer };
    try {
      fetched = await this.source(url, accept);
    } catch (error) {
      const reason = error instanceof StatusListUnavailable ? error.message : 'the list could not be fetched';
      return { failure: reason, held: [] };
    }
    const trail = new CheckTrail();
    const read = await this.verify(reference, fetched, nowS, trail);
    const held = trail.list();
    if ('failure' in read) return { failure: read.failure, held };
    const ttlS = Math.min(Math.max(read.ttlS ?? DEFAULT_TTL_S, 0), MAX_TTL_S);
    const until = Math.min(now + ttlS * 1000, read.expMs ?? Infinity);
    const valueAt = read.valueAt;
    return { valueAt, held: [...new Set(held)], resolvedAt: now, until };
  }

  /** The list's checks, and what a verified list says: a reader of indices, its ttl and expiry. */
  private async verify(
    reference: StatusReference,
    fetched: { contentType: string; body: Buffer },
    nowS: number,
    trail: CheckTrail,
  ): Promise<{ valueAt: (idx: number) => number | undefined; ttlS?: number; expMs?: number } | { failure: string }> {
    const text = fetched.body.toString('utf8').trim();
    if (reference.kind === 'token') {
      const expect = { uri: reference.uri, nowS, keyFor: this.trust.keyFor, trail };
      const asCwt = fetched.contentType.split(';')[0].trim().toLowerCase() === STATUS_LIST_CWT_MEDIA;
      const result = asCwt
        ? await verifyStatusListCwt(new Uint8Array(fetched.body), expect)
        : await verifyStatusListJwt(text, expect);
      if (!result.valid) return { failure: `${result.check}: ${result.reason}` };
      const c = result.contents;
      return {
        valueAt: (idx) => statusAt(c.bytes, c.bits, idx),
        ttlS: c.ttl,
        expMs: c.exp === undefined ? undefined : c.exp * 1000,
      };
    }
    const result = await verifyBitstringListCredential(text, {
      reference,
      nowS,
      trustedIssuers: this.trust.w3cIssuers(),
      trail,
    });
    if (!result.valid) return { failure: `${result.check}: ${result.reason}` };
    const c = result.contents;
    return {
      valueAt: (idx) => {
        const bit = bitstringStatus(c, idx);
        return bit === undefined ? undefined : bitstringValue(reference.purpose, bit);
      },
      ttlS: c.ttl === undefined ? undefined : c.ttl / 1000,
      expMs: c.validUntil === undefined ? undefined : Date.parse(c.validUntil),
    };
  }
}
