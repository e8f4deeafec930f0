import { exportJWK, type JWK } from 'jose';
import { CheckFailed } from '../credentials/result.ts';
import type { StatusListKeyResolver } from '../credentials/status-list/verify-token.ts';
import { validateX5c } from '../credentials/x509/x5c.ts';
import type { StatusTrust } from './check.ts';

/** What a party trusts for an issuer: its published keys, its DIDs (W3C) and its IACA roots (x5c). */
export interface IssuerTrustAnchors {
  jwks: () => { keys: JWK[] };
  w3cIssuers: () => readonly string[];
  iacaRoots: readonly string[];
}

/**
 * The key a Status List Token must be signed by (draft-ietf-oauth-status-list §11.3): one of the
 * issuer's published keys, by `kid`, or an `x5c` leaf chaining to a trusted IACA root.
 */
export function statusTrustOf(anchors: IssuerTrustAnchors, nowS: () => number): StatusTrust {
  const keyFor: StatusListKeyResolver = async (header, trail) => {
    if (header.x5c !== undefined) {
      const chain = await validateX5c(header.x5c, { trustAnchors: [...anchors.iacaRoots], now: nowS(), trail });
      if (!chain.valid) throw new CheckFailed('status_list_signature', `x5c: ${chain.reason}`);
      return exportJWK(chain.leaf.publicKey);
    }
    const key = anchors.jwks().keys.find((k) => k.kid !== undefined && k.kid === header.kid);
    if (!key) throw new CheckFailed('status_list_signature', 'no key trusted for this issuer has that kid');
    return key;
  };
  return { keyFor, w3cIssuers: anchors.w3cIssuers };
}
