import { presentationStates, throughTheBrowser, type PresentationContext } from '../../machines/presentation.ts';
import { oauthError } from '../errors.ts';
import type { VerifierCore } from './core.ts';
import { byValueQuery } from './request-object.ts';
import { invalidRequestUri, REQUEST_ID } from './rules.ts';

/** What the handoff links need of the verifier: its core and the request's derivable state value. */
interface HandoffVerifier extends VerifierCore {
  stateOf(id: string): string;
}

/**
 * The links a wallet is handed (OpenID4VP 1.0 §5): `openid4vp://` by reference (client_id,
 * request_uri) or, for redirect_uri, by value; HAIP requests also under HAIP's own `haip-vp://`.
 */
export function linksOf(
  verifier: HandoffVerifier,
  id: string,
  state: PresentationContext,
): { openid4vp: string; haip?: string } {
  const query =
    state.requestUriMethod !== undefined
      ? new URLSearchParams({
          client_id: state.clientId ?? '',
          request_uri: `${verifier.settings.baseUrl}/oid4vp/request/${id}`,
          ...(state.requestUriMethod === 'post' ? { request_uri_method: 'post' } : {}),
        }).toString()
      : byValueQuery(id, state, verifier.stateOf(id), verifier.settings);
  return { openid4vp: `openid4vp://?${query}`, ...(state.profile === 'haip' ? { haip: `haip-vp://?${query}` } : {}) };
}

/**
 * The link a QR code of a request carries while it can be answered: the HAIP form for HAIP requests.
 * Reading it records nothing (it is not a fetch of the request object). DC API requests have none.
 */
export async function handoffLink(verifier: HandoffVerifier, id: string): Promise<string> {
  if (!REQUEST_ID.test(id)) throw oauthError('invalid_request_uri:unknown', 'No such request');
  const loaded = await verifier.current(id);
  const state = loaded.snapshot.context;
  if (!presentationStates.created(loaded.snapshot) || throughTheBrowser(state.responseMode))
    throw oauthError('invalid_request_uri:unknown', 'No such request');
  if (!presentationStates.unanswered(loaded.snapshot))
    throw invalidRequestUri(`The request is ${String(loaded.snapshot.value)}: nothing to hand to a wallet`);
  const links = linksOf(verifier, id, state);
  return links.haip ?? links.openid4vp;
}
