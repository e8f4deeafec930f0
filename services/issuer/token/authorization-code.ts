import { DPoPError } from '../../dpop/proof.ts';
import { issuanceStates } from '../../../machines/issuance.ts';
import { invalidRequest, oauthError } from '../../errors.ts';
import { verifierMatches } from '../../oauth/pkce.ts';
import { offerOf, sameHash } from '../request-rules.ts';
import type { IssuerGrantHandler } from './context.ts';

/** The authorization_code grant (RFC 6749 §4.1.3 with RFC 7636 and RFC 9449): the PAR's client, redirect_uri, verifier and DPoP key. */
export const authorizationCodeGrant: IssuerGrantHandler = async (ctx, form) => {
  const invalidGrant = (why: string) => oauthError('invalid_grant', why);
  const { attested, proof } = ctx;
  const code = form.code;
  if (!code) throw invalidRequest('code is required');
  const clientId = attested?.clientId ?? form.client_id;
  if (!clientId) throw oauthError('invalid_client', 'client_id is required (public clients)');
  if (attested && form.client_id !== undefined && form.client_id !== attested.clientId)
    throw oauthError('invalid_client', 'client_id differs from the attested client');
  const offerId = offerOf(code);
  const loaded = offerId ? await ctx.offers.get(offerId) : undefined;
  const c = loaded?.snapshot.context;
  if (
    !offerId ||
    !loaded ||
    !c ||
    !issuanceStates.codeIssued(loaded.snapshot) ||
    !sameHash(code, c.authCodeHash) ||
    !c.par
  )
    throw invalidGrant('The authorization code is unknown or was already used');
  if ((c.authCodeExpiresAt ?? 0) <= ctx.clock.now()) throw invalidGrant('The authorization code has expired');
  if (clientId !== c.par.clientId) throw invalidGrant('The code was issued to another client');
  if (c.par.attested && !attested)
    throw oauthError(
      'invalid_client',
      'The pushed request was attested: the token request needs the client attestation too',
    );
  ctx.requireHaipClient(c.configurationIds, attested, proof);
  if (form.redirect_uri !== c.par.redirectUri)
    throw invalidGrant('redirect_uri differs from the pushed authorization request');
  if (!verifierMatches(form.code_verifier, c.par.codeChallenge))
    throw invalidGrant('The code_verifier does not match the code_challenge (S256)');
  if (c.par.dpopJkt && proof?.jkt !== c.par.dpopJkt)
    throw new DPoPError('The DPoP key is not the one bound at the pushed authorization request (dpop_jkt)');
  const minted = await ctx.mintToken(offerId, c, {
    proof,
    clientId: c.par.clientId,
    ...(attested ? { attested } : {}),
  });
  if (!minted) throw invalidGrant('The authorization code was already used');
  return minted;
};
