import type { NewEvent, StoredEvent } from '../../services/event-log.ts';

/** An append waiting for the next group commit; its promise settles once that transaction ends. */
export interface PendingAppend {
  streamId: string;
  expectedVersion: number;
  events: readonly NewEvent[];
  snapshot: unknown;
  resolve: (stored: StoredEvent[]) => void;
  reject: (error: unknown) => void;
}
