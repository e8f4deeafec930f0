import { SignJWT } from 'jose';
import type { SigningKey } from '../keys.ts';

/** What one Security Event Token says (RFC 8417 §2.2, SSF 1.0 §4). */
export interface SetClaims {
  iss: string;
  aud: string;
  jti: string;
  /** Seconds since the epoch. */
  iat: number;
  /** SSF 1.0 §3.4: the top-level subject of the event. */
  sub_id: Record<string, unknown>;
  /** One event: its type URI and its body. */
  events: Record<string, Record<string, unknown>>;
  /** RFC 8417 §2.2: the transaction the event belongs to, when there is one. */
  txn?: string;
}

export const SET_TYP = 'secevent+jwt';

/** A SET signed with ES256 by the main origin's key (`typ: secevent+jwt`, RFC 8417 §2.3). */
export function signSet(claims: SetClaims, key: SigningKey): Promise<string> {
  return new SignJWT({
    sub_id: claims.sub_id,
    events: claims.events,
    ...(claims.txn !== undefined ? { txn: claims.txn } : {}),
  })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: SET_TYP })
    .setIssuer(claims.iss)
    .setAudience(claims.aud)
    .setIssuedAt(claims.iat)
    .setJti(claims.jti)
    .sign(key.privateKey);
}
