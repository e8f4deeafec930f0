import { randomBytes } from 'node:crypto';
import type { Http } from './http.ts';
import { ModelMismatch, transitionKey, type Observation } from './model.ts';

const stateName = (state: unknown) => (typeof state === 'string' ? state : JSON.stringify(state));

/**
 * An actor's logged state, read through the stream export (`GET /api/streams/{id}/export`): each
 * event carries the state after it, so consecutive events give the transitions the log records.
 * Undefined when the stream cannot be read (404: nothing logged yet, or not this caller's).
 */
export async function observeStream(
  http: Http,
  streamId: string,
  initial: string,
  headers: Record<string, string> = {},
  capability: Record<string, string> = {},
): Promise<Observation | undefined> {
  const query = new URLSearchParams(capability).toString();
  const answer = await http.call(`/api/streams/${streamId}/export${query ? `?${query}` : ''}`, { headers });
  if (answer.status === 404) return undefined;
  if (answer.status !== 200) throw new ModelMismatch(`export of ${streamId}: ${answer.status} ${answer.text}`);
  const events = answer.body.events as Array<{ type: string; state: unknown }>;
  let from = initial;
  const transitions = events.map((e) => {
    const to = stateName(e.state);
    const key = transitionKey(from, e.type, to);
    from = to;
    return key;
  });
  return { state: stateName(answer.body.final_state), transitions };
}

/** A request header naming a wallet exchange, as the wallet harness sends it (docs/debugging.md, correlation). */
export const namingAWalletExchange = () => ({
  'x-portico-exchange': `wallet-exchange:model-${randomBytes(6).toString('base64url')}`,
});
