import type { CredentialStatusView } from '../../machines/presentation.ts';
import { BoundedCache } from '../bounded-cache.ts';
import type { Clock } from '../clock.ts';
import type { OutboundHttp } from '../outbound.ts';
import { StatusChecker } from '../status/check.ts';
import { outcomeView } from '../status/references.ts';
import { guardedListSource } from '../status/source.ts';
import { statusTrustOf } from '../status/trust.ts';
import type { HeldCredential, WalletSession } from './sessions.ts';

/** A held credential's status, in the wallet's words. */
export type HeldStatus = 'valid' | 'suspended' | 'revoked' | 'unavailable' | 'none';

export interface HeldStatusView {
  status: HeldStatus;
  /** Each reference, what its list said and when it was resolved. */
  references: CredentialStatusView[];
  reason?: string;
}

const worstFirst: Record<string, HeldStatus> = {
  credential_revoked: 'revoked',
  credential_suspended: 'suspended',
  status_unavailable: 'unavailable',
};
const RANK: HeldStatus[] = ['revoked', 'suspended', 'unavailable', 'valid'];

/**
 * The wallet's view of its credentials' status (docs/status.md): each list fetched through the
 * outbound guard, checked against the keys the issuer had when the credential was stored (or an x5c
 * chain to a trusted IACA), and kept for its ttl. Checkers are kept per issuer, so a list is fetched
 * once per ttl whichever session asks.
 */
export class WalletCredentialStatus {
  private readonly checkers = new BoundedCache<string, StatusChecker>(128);
  private readonly source;

  constructor(
    outbound: OutboundHttp,
    private readonly iacaRoots: readonly string[],
    private readonly clock: Clock,
  ) {
    this.source = guardedListSource(outbound);
  }

  async of(session: WalletSession, held: HeldCredential): Promise<HeldStatusView> {
    const references = held.status_references;
    if (references === undefined || (Array.isArray(references) && references.length === 0))
      return { status: 'none', references: [] };
    if (references === 'malformed')
      return { status: 'unavailable', references: [], reason: 'a status reference cannot be read' };
    const checker = this.checkerFor(session, held);
    const outcomes = [];
    for (const reference of references) outcomes.push(await checker.check(reference));
    const statuses = outcomes.map((o) => (o.failure ? worstFirst[o.failure.check] : 'valid'));
    const status = RANK.find((s) => statuses.includes(s)) ?? 'valid';
    const reason = outcomes.find((o) => o.failure)?.failure?.reason;
    return { status, references: outcomes.map(outcomeView), ...(reason ? { reason } : {}) };
  }

  private checkerFor(session: WalletSession, held: HeldCredential): StatusChecker {
    const trust = session.statusTrust.get(held.credential_id) ?? { jwks: { keys: [] } };
    const key = JSON.stringify([held.credential_issuer, trust.w3cIssuer, trust.jwks.keys.map((k) => k.kid)]);
    let checker = this.checkers.get(key);
    if (!checker) {
      checker = new StatusChecker(
        this.source,
        statusTrustOf(
          {
            jwks: () => trust.jwks,
            w3cIssuers: () => (trust.w3cIssuer ? [trust.w3cIssuer] : []),
            iacaRoots: this.iacaRoots,
          },
          () => Math.floor(this.clock.now() / 1000),
        ),
        this.clock,
      );
      this.checkers.set(key, checker);
    }
    return checker;
  }
}
