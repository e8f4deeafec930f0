import { EventEmitter } from 'eventemitter3';
import type { CommitListener, StoredEvent } from '../../services/event-log.ts';

/**
 * What both event logs do around a commit: the handlers that run inside each append's transaction
 * (read models fold there), and the listeners told of every commit afterwards.
 */
export class CommitHooks<H> {
  private readonly bus = new EventEmitter<{ commit: CommitListener }>();
  /** The handlers run inside each append's transaction, in registration order. */
  readonly inTransaction: H[] = [];

  /** Adds a handler run inside each append's transaction; answers its removal. */
  withinAppend(handler: H): () => void {
    this.inTransaction.push(handler);
    return () => {
      const i = this.inTransaction.indexOf(handler);
      if (i >= 0) this.inTransaction.splice(i, 1);
    };
  }

  onCommit(listener: CommitListener): () => void {
    this.bus.on('commit', listener);
    return () => this.bus.off('commit', listener);
  }

  /** Tells every listener of committed events. */
  committed(events: readonly StoredEvent[]): void {
    this.bus.emit('commit', events);
  }

  close(): void {
    this.bus.removeAllListeners();
  }
}
