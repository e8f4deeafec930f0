import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { randomToken } from '../crypto/random.ts';
import {
  didJwkFromJwk,
  didKeyFromJwk,
  didWebDocument,
  didWebFromDomain,
  generateHolderKey,
  type DidDocument,
  type KeyPair,
} from '../credentials/keys/index.ts';
import { oauthError } from '../errors.ts';
import type { References } from '../status/references.ts';
import type { JWK } from 'jose';
import type { WalletDidMethod, WalletSigningAlg } from './settings.ts';

/** A session id a client may choose or was given (decisions section 10). */
const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** The id every request shares when strict isolation is off. */
const SHARED_SESSION_ID = 'shared';

/** A credential held by a session (filled by issuance and import). */
export interface HeldCredential {
  credential_id: string;
  format: string;
  credential_configuration_id?: string;
  credential_issuer?: string;
  vct?: string;
  doctype?: string;
  types?: string[];
  batch_secondary: boolean;
  holder_key_thumbprint?: string;
  expires_at?: string;
  claims: Record<string, unknown>;
  /** Where its status is published (docs/status.md); `malformed` when a reference cannot be read. */
  status_references?: References;
  credential: string;
}

/** What a credential's status lists must be signed by: its issuer's keys as met at issuance, its W3C issuer DID. */
interface StatusTrustRecord {
  jwks: { keys: JWK[] };
  w3cIssuer?: string;
}

/** What one wallet session holds, in memory only, until its TTL lapses. */
export interface WalletSession {
  id: string;
  holder: KeyPair;
  /** The DID of the holder key (`WALLET_DID_METHOD`). */
  did: string;
  /** The DID document served for did:web at `/wallet/<thumbprint>/did.json`. */
  didDocument?: DidDocument;
  createdAt: number;
  expiresAt: number;
  credentials: Map<string, HeldCredential>;
  activeCredentialId: string | null;
  /** Presentation requests resolved and waiting for consent, by request id. */
  pending: Map<string, unknown>;
  /** Private keys of batch credentials bound to keys other than the holder or device key, by thumbprint. */
  batchKeys: Map<string, KeyPair>;
  /** Per credential id: the trust its status lists are checked against. */
  statusTrust: Map<string, StatusTrustRecord>;
}

export interface SessionPolicy {
  ttlMs: number;
  strict: boolean;
  signingAlg: WalletSigningAlg;
  didMethod: WalletDidMethod;
  /** Host (with port) of the wallet origin, for did:web. */
  walletHost: string;
  /** Sessions held at once; past it the one closest to expiry is dropped. */
  maxSessions: number;
}

/** `wallet_subject_label`: the configured subject and 12 hex characters of SHA-256 of the session id. */
export const subjectLabel = (subject: string, sessionId: string) =>
  `${subject}-${createHash('sha256').update(sessionId).digest('hex').slice(0, 12)}`;

/**
 * Wallet sessions in memory (decisions section 10): a session is named by the client (`X-Wallet-Session`
 * or the `wallet_session` cookie) or minted here (`ws_` + 22 base64url characters); strict isolation
 * off, every request shares one session. Each session has its own holder key and DID and nothing
 * else in common with another. The TTL slides with every use; an expired id starts empty.
 */
export class WalletSessions {
  private readonly sessions = new Map<string, WalletSession>();
  private readonly creating = new Map<string, Promise<WalletSession>>();

  constructor(
    private readonly policy: SessionPolicy,
    private readonly clock: Clock,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /**
   * The session a request names, created when new or lapsed. `requested` is the header or cookie
   * value, if any; a malformed one is refused. Returns whether the id was minted here.
   */
  async resolve(requested: string | undefined): Promise<{ session: WalletSession; minted: boolean }> {
    if (requested !== undefined && !SESSION_ID.test(requested))
      throw oauthError(
        'invalid_request',
        'X-Wallet-Session must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_" or "-"',
      );
    const minted = requested === undefined && this.policy.strict;
    const id = requested ?? (this.policy.strict ? `ws_${randomToken(16)}` : SHARED_SESSION_ID);
    return { session: await this.touch(id), minted };
  }

  /** A live session by id without extending it, or undefined. */
  peek(id: string): WalletSession | undefined {
    const session = this.sessions.get(id);
    return session && session.expiresAt > this.clock.now() ? session : undefined;
  }

  /** The session whose did:web document lives at `/wallet/<thumbprint>/did.json`. */
  byThumbprint(thumbprint: string): WalletSession | undefined {
    for (const session of this.sessions.values())
      if (session.holder.kid === thumbprint && session.expiresAt > this.clock.now()) return session;
    return undefined;
  }

  /** Seconds until the session lapses. */
  expiresIn(session: WalletSession): number {
    return Math.max(0, Math.ceil((session.expiresAt - this.clock.now()) / 1000));
  }

  /** Drops every lapsed session (their keys and credentials go with them). */
  sweep(): number {
    const now = this.clock.now();
    let dropped = 0;
    for (const [id, session] of this.sessions) {
      if (session.expiresAt <= now) {
        this.sessions.delete(id);
        dropped += 1;
      }
    }
    return dropped;
  }

  private async touch(id: string): Promise<WalletSession> {
    const now = this.clock.now();
    const live = this.sessions.get(id);
    if (live && live.expiresAt > now) {
      live.expiresAt = now + this.policy.ttlMs;
      return live;
    }
    // Concurrent first requests of one id share the one session being made.
    let pending = this.creating.get(id);
    if (!pending) {
      pending = this.create(id).finally(() => this.creating.delete(id));
      this.creating.set(id, pending);
    }
    return pending;
  }

  private async create(id: string): Promise<WalletSession> {
    const holder = await generateHolderKey(this.policy.signingAlg);
    const { did, didDocument } = await this.identify(holder);
    const now = this.clock.now();
    const session: WalletSession = {
      id,
      holder,
      did,
      didDocument,
      createdAt: now,
      expiresAt: now + this.policy.ttlMs,
      credentials: new Map(),
      activeCredentialId: null,
      pending: new Map(),
      batchKeys: new Map(),
      statusTrust: new Map(),
    };
    this.sessions.delete(id);
    if (this.sessions.size >= this.policy.maxSessions) this.evictOne();
    this.sessions.set(id, session);
    return session;
  }

  private async identify(holder: KeyPair): Promise<{ did: string; didDocument?: DidDocument }> {
    if (this.policy.didMethod === 'jwk') return { did: didJwkFromJwk(holder.publicJwk) };
    if (this.policy.didMethod === 'web') {
      const path = ['wallet', holder.kid];
      const didDocument = await didWebDocument(holder.publicJwk, this.policy.walletHost, path);
      return { did: didWebFromDomain(this.policy.walletHost, path), didDocument };
    }
    return { did: didKeyFromJwk(holder.publicJwk) };
  }

  private evictOne(): void {
    let oldest: WalletSession | undefined;
    for (const session of this.sessions.values()) if (!oldest || session.expiresAt < oldest.expiresAt) oldest = session;
    if (oldest) this.sessions.delete(oldest.id);
  }
}
