import type { VerifierCore } from './core.ts';
import { presentationStates } from '../../machines/presentation.ts';

/**
 * Correlation (docs/debugging.md): the presentation stream an answer names, after recording the
 * wallet exchange that asked (once per request). Undefined when the request is unknown.
 */
export async function correlatePresentation(
  verifier: Pick<VerifierCore, 'requests' | 'clock' | 'current'>,
  requestId: string | undefined,
  walletExchange: string | undefined,
): Promise<string | undefined> {
  if (!requestId) return undefined;
  const loaded = await verifier.current(requestId);
  if (!presentationStates.created(loaded.snapshot)) return undefined;
  if (walletExchange && loaded.snapshot.context.walletExchange === undefined)
    await verifier.requests.execute(requestId, {
      type: 'presentation.correlated',
      at: verifier.clock.now(),
      stream: walletExchange,
    });
  return `presentation:${requestId}`;
}
