/** The events and context of an `ssf-stream:<stream_id>` stream (machines/ssf-stream.ts folds them). */

type SsfDeliveryMethod = 'urn:ietf:rfc:8935' | 'urn:ietf:rfc:8936';
type SsfStatus = 'enabled' | 'paused' | 'disabled';

export interface SsfDelivery {
  method: SsfDeliveryMethod;
  endpoint_url: string;
  /** Push: the receiver's Authorization header value, sealed with a server key (never stored in clear). */
  authorization_header_sealed?: string;
}

/** A SET waiting for delivery. */
export interface PendingSet {
  jti: string;
  /** The signed SET (a signed statement, not a secret). */
  set: string;
  /** Stream control events (verification, stream-updated) are delivered whatever the status. */
  control: boolean;
}

export type SsfStreamEvent =
  | {
      type: 'ssf.stream_created';
      at: number;
      client_id: string;
      delivery: SsfDelivery;
      events_requested: string[];
      events_delivered: string[];
      description?: string;
    }
  | {
      type: 'ssf.stream_updated';
      at: number;
      delivery?: SsfDelivery;
      events_requested?: string[];
      events_delivered?: string[];
      description?: string | null;
    }
  | { type: 'ssf.status_changed'; at: number; status: SsfStatus; reason?: string }
  | { type: 'ssf.subject_added'; at: number; key: string; subject: Record<string, unknown>; verified: boolean }
  | { type: 'ssf.subject_removed'; at: number; key: string }
  /** A SET made for this stream: queued until delivered and acknowledged. */
  | {
      type: 'ssf.set_issued';
      at: number;
      jti: string;
      set: string;
      event_types: string[];
      control: boolean;
      verification?: boolean;
    }
  /** SETs handed to the receiver: a poll's answer, or a push attempt (acknowledged or not yet). */
  | { type: 'ssf.sets_delivered'; at: number; jtis: string[]; method: 'poll' | 'push' }
  /** A push attempt that failed (no answer, or an answer that is neither 202 nor an RFC 8935 error): retried. */
  | {
      type: 'ssf.delivery_failed';
      at: number;
      jti: string;
      reason: string;
      attempt: number;
      /** When the push is tried again (RFC 8935 backoff), and since when it has failed: the retry's schedule. */
      retry_at?: number;
      failing_since?: number;
    }
  /** One instance takes the stream's push delivery until `until` (a lease): two never push one SET twice. */
  | { type: 'ssf.delivery_leased'; at: number; holder: string; until: number }
  /** RFC 8936 §2.4: acknowledged SETs are never delivered again. */
  | { type: 'ssf.sets_acknowledged'; at: number; jtis: string[] }
  /** RFC 8936 §2.4: SETs the receiver refused, with its error; they are not delivered again either. */
  | { type: 'ssf.sets_refused'; at: number; errors: Array<{ jti: string; err: string; description?: string }> }
  | { type: 'ssf.stream_deleted'; at: number };

export interface SsfStreamContext {
  clientId: string;
  delivery?: SsfDelivery;
  eventsRequested: string[];
  eventsDelivered: string[];
  description?: string;
  reason?: string;
  /** Subjects by their canonical key. */
  subjects: Array<{ key: string; subject: Record<string, unknown>; verified: boolean }>;
  /** SETs not yet acknowledged, oldest first. */
  pending: PendingSet[];
  /** Every jti queued (the last 10,000): a fact signalled twice (two instances) is queued once, even after its ack. */
  queued: string[];
  /** The last receiver errors (RFC 8936 setErrs, RFC 8935 error answers), newest last, at most 20. */
  errors: Array<{ jti: string; err: string; description?: string; at: number }>;
  lastVerificationAt?: number;
  /** When SETs were last handed out, and the last failed push (docs/ssf.md). */
  lastDeliveredAt?: number;
  lastFailure?: { jti: string; reason: string; attempt: number; at: number };
  /** The push retry under way, as the log scheduled it: a restart resumes it, the 24-hour give-up included. */
  retry?: { since: number; attempts: number; at: number };
  /** Which instance pushes this stream's SETs, and until when. */
  lease?: { holder: string; until: number };
  createdAt: number;
}
