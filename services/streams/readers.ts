import type { StoredEvent } from '../event-log.ts';
import { notFound } from '../errors.ts';

/** What a caller shows to read a stream: its Authorization header, a capability in the query. */
export interface StreamCredentials {
  /** The request's Authorization header, as sent. */
  authorization?: string;
  /** The request's Cookie header, as sent (a browser proves a run's token with the run's cookie). */
  cookie?: string;
  transactionId?: string;
  responseCode?: string;
}

/** How a permitted reader sees the stream's events (e.g. disclosed claims withheld without a response_code). */
export interface StreamView {
  data?: (event: StoredEvent) => Record<string, unknown>;
}

/** A kind's read rule: the view this caller gets of stream `<kind>:<id>`, or undefined (answered 404). */
export type StreamReader = (id: string, credentials: StreamCredentials) => Promise<StreamView | undefined>;

/**
 * A stream id that may be exported: a kind, a colon, and an id of at most 160 characters (a SCIM
 * resource's id names its tenant first: `scim-user:<tenant>:<id>`).
 */
export const EXPORTABLE_STREAM_ID = /^([a-z][a-z-]{0,30}):([A-Za-z0-9_-][A-Za-z0-9_.:-]{0,159})$/;

/**
 * Who may read a stream, by its kind: exactly who may already read it elsewhere. Each bounded
 * context registers its kind's rule; a kind without one is not exportable, and is answered like an
 * unknown stream (404, never 403: existence is not revealed).
 */
export class StreamReaders {
  private readonly readers = new Map<string, StreamReader>();

  register(kind: string, reader: StreamReader): void {
    this.readers.set(kind, reader);
  }

  /** The view this caller gets of `streamId`; 404 when the kind is not exportable or the caller may not read it. */
  async view(streamId: string, credentials: StreamCredentials): Promise<StreamView> {
    const [, kind, id] = EXPORTABLE_STREAM_ID.exec(streamId) ?? [];
    const reader = kind === undefined ? undefined : this.readers.get(kind);
    const view = reader && (await reader(id!, credentials));
    if (!view) throw notFound('No such stream');
    return view;
  }
}
