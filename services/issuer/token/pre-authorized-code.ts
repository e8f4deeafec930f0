import { TX_CODE_ATTEMPTS, issuanceStates } from '../../../machines/issuance.ts';
import { invalidRequest, oauthError } from '../../errors.ts';
import { offerOf, sameHash } from '../request-rules.ts';
import type { IssuerGrantContext, IssuerGrantHandler } from './context.ts';

/**
 * The pre-authorized code grant (OpenID4VCI 1.0 §6.1): the offer's code, its tx_code when it has one
 * (five wrong ones burn it), HAIP's attestation and DPoP (both checked by the endpoint before any
 * grant); the code is consumed only once every other check passed.
 */
export const preAuthorizedCodeGrant: IssuerGrantHandler = async (ctx, form) => {
  const { attested, proof } = ctx;
  const code = form['pre-authorized_code'];
  if (!code) throw invalidRequest('pre-authorized_code is required');
  const offerId = offerOf(code);
  const loaded = offerId ? await ctx.offers.get(offerId) : undefined;
  const c = loaded?.snapshot.context;
  const invalidGrant = (why: string) => oauthError('invalid_grant', why);
  if (!offerId || !loaded || loaded.version === 0 || !c || !sameHash(code, c.codeHash))
    throw invalidGrant('The pre-authorized code is unknown');
  if (!issuanceStates.preAuthorizable(loaded.snapshot))
    throw invalidGrant('The pre-authorized code was already used, burned or has expired');
  if (c.expiresAt <= ctx.clock.now()) {
    await ctx.recordLapse(offerId);
    throw invalidGrant('The pre-authorized code has expired');
  }
  const txCode = form.tx_code;
  if (c.txCodeHash && txCode === undefined) throw invalidRequest('tx_code is required for this offer');
  if (!c.txCodeHash && txCode !== undefined) throw invalidRequest('This offer has no tx_code');
  if (c.txCodeHash && !sameHash(txCode!, c.txCodeHash)) throw invalidGrant(await rejectTxCode(ctx, offerId));
  ctx.requireHaipClient(c.configurationIds, attested, proof);
  // Every other check passed: only now is the code consumed (the token_issued transition).
  const minted = await ctx.mintToken(offerId, c, {
    proof,
    ...(attested ? { clientId: attested.clientId, attested } : {}),
  });
  if (!minted) throw invalidGrant('The pre-authorized code was already used');
  return minted;
};

/**
 * A wrong tx_code is decided in the offer's turn, one at a time: the count of attempts left comes from
 * the state after this rejection, so concurrent guesses each hear the truth.
 */
async function rejectTxCode(ctx: IssuerGrantContext, offerId: string): Promise<string> {
  const outcome = await ctx.offers.execute(offerId, { type: 'issuance.tx_code_rejected', at: ctx.clock.now() });
  if (!outcome.accepted) return 'The pre-authorized code was already used, burned or has expired';
  const left = TX_CODE_ATTEMPTS - outcome.snapshot.context.txCodeFailures;
  return left > 0
    ? `The tx_code is wrong (${left} attempt(s) left)`
    : 'The tx_code is wrong; the pre-authorized code is burned';
}
