import { SignJWT } from 'jose';
import type { SigningKey } from '../keys.ts';
import { randomToken } from '../crypto/random.ts';
import type { SsfStreamEvent } from '../../machines/ssf-stream.ts';

/** What one Security Event Token says (RFC 8417 §2.2, SSF 1.0 §4). */
interface SetClaims {
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
function signSet(claims: SetClaims, key: SigningKey): Promise<string> {
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

/** What a stream's SET is about: its event, its subject, and whether it is a stream control event. */
export interface SetEvent {
  type: string;
  body: Record<string, unknown>;
  subject: Record<string, unknown>;
  control: boolean;
  txn?: string;
  jti?: string;
}

/** One SET for one stream's receiver (`aud` its client), signed with `key`, as the stream's `set_issued` event. */
export async function issuedSet(
  issuer: string,
  key: SigningKey,
  clientId: string,
  event: SetEvent,
  at: number,
): Promise<Extract<SsfStreamEvent, { type: 'ssf.set_issued' }>> {
  const jti = event.jti ?? randomToken(16);
  const set = await signSet(
    {
      iss: issuer,
      aud: clientId,
      jti,
      iat: Math.floor(at / 1000),
      sub_id: event.subject,
      events: { [event.type]: event.body },
      ...(event.txn !== undefined ? { txn: event.txn } : {}),
    },
    key,
  );
  return { type: 'ssf.set_issued', at, jti, set, event_types: [event.type], control: event.control };
}
