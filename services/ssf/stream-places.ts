import { ssfStreamStates, type ssfStreamMachine } from '../../machines/ssf-stream.ts';
import type { ActorRuntime } from '../actors/runtime.ts';
import { UNMADE_HOLDER_MS, type PlaceRule } from '../places/client-places.ts';

/**
 * A client's Shared Signals places (at most `limit` streams, SSF 1.0 §8.1.1.1's 403): each live stream
 * holds one; a deleted stream, or one never created a minute after its place was taken, holds none.
 */
export function streamPlaces(
  limit: number,
  live: { ofClient(clientId: string): Promise<string[]> },
  streams: ActorRuntime<typeof ssfStreamMachine>,
): PlaceRule {
  return {
    kind: 'ssf-streams',
    limit,
    heldBefore: (clientId) => live.ofClient(clientId),
    lapsed: async (places, now) => {
      const gone = [];
      for (const { holder, at } of places) {
        const { version, snapshot } = await streams.get(holder);
        const unmade = version === 0 && now - at >= UNMADE_HOLDER_MS;
        if (unmade || (version > 0 && ssfStreamStates.deleted(snapshot))) gone.push(holder);
      }
      return gone;
    },
  };
}
