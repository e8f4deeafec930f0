import type { IssuerCore } from './core.ts';

/**
 * Correlation (docs/debugging.md): the issuance stream an answer names, after recording the wallet
 * exchange that asked (once per issuance). Undefined when the offer is unknown.
 */
export async function correlateIssuance(
  issuer: Pick<IssuerCore, 'offers' | 'clock'>,
  offerId: string | undefined,
  walletExchange: string | undefined,
): Promise<string | undefined> {
  if (!offerId) return undefined;
  const { version, snapshot } = await issuer.offers.get(offerId);
  if (version === 0) return undefined;
  if (walletExchange && snapshot.context.walletExchange === undefined)
    await issuer.offers.execute(offerId, {
      type: 'issuance.correlated',
      at: issuer.clock.now(),
      stream: walletExchange,
    });
  return `issuance:${offerId}`;
}
