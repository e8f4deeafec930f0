import { SignJWT } from 'jose';
import type { RevocationEntry, RevocationFeed } from '../../projections/revocation-feed.ts';
import type { KeyRing } from '../keys.ts';
import { BoundedCache } from '../bounded-cache.ts';
import { KEY_SET } from './tokens.ts';
import type { AgentAuthSettings } from './settings.ts';

/**
 * Revocations as Security Event Tokens (RFC 8417) signed by the agentauth key. The feed keeps the
 * facts; tokens are signed when first delivered and kept, so every delivery of a jti is the same JWT.
 */
export class SecurityEvents {
  private readonly signed = new BoundedCache<string, Promise<string>>(10_000);

  constructor(
    readonly feed: RevocationFeed,
    private readonly keys: KeyRing,
    private readonly settings: AgentAuthSettings,
  ) {}

  token(entry: RevocationEntry): Promise<string> {
    let jwt = this.signed.get(entry.jti);
    if (!jwt) {
      jwt = this.sign(entry);
      this.signed.set(entry.jti, jwt);
    }
    return jwt;
  }

  private sign(entry: RevocationEntry): Promise<string> {
    const key = this.keys.signing(KEY_SET, 'ES256');
    return new SignJWT({
      events: { [this.settings.revocationEventUri]: { subject: { format: 'opaque', id: entry.agent_id } } },
    })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'secevent+jwt' })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.resourceAudience)
      .setIssuedAt(Math.floor(entry.at / 1000))
      .setJti(entry.jti)
      .sign(key.privateKey);
  }
}
