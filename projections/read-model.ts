import type { CommittedEvent, Dialect, Projection, ReadModelReader, SqlStatement } from './types.ts';

/**
 * What every read model shares: its name and tables, the store's reader it is attached to, and a
 * refusal to read before it is. A read model says only its schema, its fold and its lookups.
 */
export abstract class ReadModel implements Projection {
  abstract readonly name: string;
  abstract readonly tables: readonly string[];
  private attached?: ReadModelReader;

  abstract schema(dialect: Dialect): string[];
  abstract apply(events: readonly CommittedEvent[]): SqlStatement[];

  attach(reader: ReadModelReader): void {
    this.attached = reader;
  }

  /** Where its lookups read from; an error before the runner attached it. */
  protected get read(): ReadModelReader {
    if (!this.attached) throw new Error(`${this.name} is not attached to a store`);
    return this.attached;
  }
}

/** The events of `prefix:` streams, each with the id its stream names. */
export function* eventsOfStreams(
  events: readonly CommittedEvent[],
  prefix: string,
): Generator<[id: string, event: CommittedEvent]> {
  const start = `${prefix}:`;
  for (const e of events) if (e.streamId.startsWith(start)) yield [e.streamId.slice(start.length), e];
}
