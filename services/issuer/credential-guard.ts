import type { DPoPServer } from '../dpop/check.ts';
import type { KeyRing } from '../keys.ts';
import type { Clock } from '../clock.ts';
import type { DemoUser } from './core.ts';
import { verifyAccessTokenJwt, type VerifiedAccessToken } from '../oauth/access-token-verifier.ts';
import { ResourceGuard } from '../oauth/resource-guard.ts';

/** An access token of the issuer's authorization server (token/mint.ts). */
export interface IssuerAccessClaims extends VerifiedAccessToken {
  /** The offer the token was issued for. */
  issuance?: string;
  cnf?: { jkt: string };
}

/**
 * The guard of the credential, deferred and notification endpoints: the issuer's own access tokens
 * (`at+jwt`, issuer and audience the credential issuer), their subject a known user (an unknown one is
 * never replaced by another), and for a DPoP-bound token a proof from the bound key with the resource
 * side's nonce. A nonce challenge is recorded on the offer's stream.
 */
export function credentialGuard(deps: {
  keys: KeyRing;
  clock: Clock;
  issuer: string;
  users: ReadonlyMap<string, DemoUser>;
  dpop: DPoPServer;
  recordNonceChallenge(offerId: string): Promise<void>;
}): ResourceGuard<IssuerAccessClaims, DemoUser> {
  const rules = { issuer: deps.issuer, audience: deps.issuer, typ: 'at+jwt', keySet: 'oid4vci' } as const;
  return new ResourceGuard({
    verify: (token) => verifyAccessTokenJwt<IssuerAccessClaims>(deps.keys, rules, token, deps.clock.now()),
    dpop: deps.dpop,
    subject: (claims) => deps.users.get(claims.sub),
    onNonceChallenge: async (claims) => {
      if (typeof claims.issuance === 'string') await deps.recordNonceChallenge(claims.issuance);
    },
    say: {
      missing: 'An access token from the token endpoint is required',
      invalid: 'The access token is invalid or expired',
      unknownSubject: "The access token's subject is not a known user",
    },
  });
}
