/** One Server-Sent Events message (its fields as sent). */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/** Reads messages of type `event` from an event stream until `count` arrived (or it ended), then stops reading. */
export async function readSseMessages(
  res: Response,
  count: number,
  event: string,
  abort?: AbortController,
): Promise<SseMessage[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const messages: SseMessage[] = [];
  while (messages.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = new Map(
        block
          .split('\n')
          .filter((l) => l && !l.startsWith(':'))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()] as const),
      );
      if (fields.get('event') === event) messages.push({ id: fields.get('id'), event, data: fields.get('data') ?? '' });
    }
  }
  abort?.abort();
  return messages;
}
