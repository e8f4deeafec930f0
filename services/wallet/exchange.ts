import { createHash } from 'node:crypto';
import { walletExchangeMachine, type ExchangeKind, type HopStep } from '../../machines/wallet-exchange.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import { randomToken } from '../crypto/random.ts';
import type { EventLog } from '../event-log.ts';

/** One wire call as the caller sees it in `_protocol_exchanges`. */
export interface ProtocolExchange {
  step: HopStep;
  method: string;
  url: string;
  status: number;
  request?: { headers?: Record<string, string>; body?: unknown };
  response?: { body?: unknown };
  note?: string;
}

/** How a JWT the wallet signed was built (`_looking_glass_events`). */
export interface LookingGlassEvent {
  kind: string;
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  why: string;
}

/** A fingerprint of a secret or a session id: what the log may hold instead of the value. */
export const fingerprint = (value: string) =>
  `sha256:${createHash('sha256').update(value).digest('base64url').slice(0, 16)}`;
/** The part of a URL the log keeps: origin and path, never the query (codes, request_uris). */
const loggedUrl = (url: string) => {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
};

export class WalletExchanges {
  readonly runtime: ActorRuntime<typeof walletExchangeMachine>;
  constructor(
    log: EventLog,
    readonly clock: Clock,
  ) {
    this.runtime = ActorRuntime.of(log, walletExchangeMachine, 'wallet-exchange', 1_000, false);
  }

  async start(kind: ExchangeKind, sessionId: string, source: string): Promise<ExchangeRecorder> {
    const id = randomToken(12);
    await this.runtime.create(id, {
      type: 'exchange.started',
      at: this.clock.now(),
      kind,
      session: fingerprint(sessionId),
      source: loggedUrl(source) === '(not a URL)' ? source.slice(0, 64) : loggedUrl(source),
    });
    return new ExchangeRecorder(id, this);
  }
}

/**
 * What one exchange did: every hop for the caller (`_protocol_exchanges`, with its own values) and
 * for the log (steps, URLs without queries, statuses, fingerprints only).
 */
export class ExchangeRecorder {
  readonly exchanges: ProtocolExchange[] = [];
  readonly lookingGlass: LookingGlassEvent[] = [];
  private readonly peers = new Set<string>();
  constructor(
    readonly id: string,
    private readonly owner: WalletExchanges,
  ) {}

  async hop(exchange: ProtocolExchange, enc?: string): Promise<void> {
    this.exchanges.push(exchange);
    await this.owner.runtime.execute(this.id, {
      type: 'exchange.hop',
      at: this.owner.clock.now(),
      step: exchange.step,
      method: exchange.method,
      url: loggedUrl(exchange.url),
      status: exchange.status,
      ...(enc ? { enc } : {}),
    });
  }

  /** Records the issuer's or verifier's stream that answered this exchange, once per stream. */
  async correlate(peerStream: string): Promise<void> {
    if (this.peers.has(peerStream)) return;
    this.peers.add(peerStream);
    await this.owner.runtime.execute(this.id, {
      type: 'exchange.correlated',
      at: this.owner.clock.now(),
      stream: peerStream,
    });
  }

  explain(event: LookingGlassEvent): void {
    this.lookingGlass.push(event);
  }

  async stored(
    credentialId: string,
    format: string,
    holderKeyThumbprint: string | undefined,
    batchSecondary: boolean,
  ): Promise<void> {
    await this.owner.runtime.execute(this.id, {
      type: 'exchange.credential_stored',
      at: this.owner.clock.now(),
      credential_id: credentialId,
      format,
      batch_secondary: batchSecondary,
      ...(holderKeyThumbprint ? { holder_key_thumbprint: holderKeyThumbprint } : {}),
    });
  }

  async presented(verifier: string, upstreamStatus: number, credentialIds: string[], enc?: string): Promise<void> {
    await this.owner.runtime.execute(this.id, {
      type: 'exchange.presented',
      at: this.owner.clock.now(),
      verifier: loggedUrl(verifier),
      upstream_status: upstreamStatus,
      credential_ids: credentialIds,
      ...(enc ? { enc } : {}),
    });
  }

  async failed(error: string, check?: string): Promise<void> {
    await this.owner.runtime.execute(this.id, {
      type: 'exchange.failed',
      at: this.owner.clock.now(),
      error,
      ...(check ? { check } : {}),
    });
  }

  /** The members every wallet response carries. */
  view() {
    return {
      _protocol_exchanges: this.exchanges,
      _looking_glass_events: this.lookingGlass,
      _exchange: this.reference(),
    };
  }

  /** Where the session reads this exchange again, as its event stream (docs/debugging.md). */
  reference() {
    return { id: this.id, stream: `wallet-exchange:${this.id}`, export: `api/exchanges/${this.id}/export` };
  }

  /**
   * What an error response carries (decisions §10: never upstream bytes): each hop's step, method,
   * URL and status only, without bodies, headers or notes.
   */
  failureView() {
    return {
      _protocol_exchanges: this.exchanges.map(({ step, method, url, status }) => ({ step, method, url, status })),
      _looking_glass_events: this.lookingGlass,
      _exchange: this.reference(),
    };
  }
}
