import { oauthError } from '../errors.ts';
import type { IssuerCore, PresentedRequest } from './core.ts';
import { credentialAccess } from './credential-access.ts';
import { isNotificationDescription, offerOf, sameHash } from './request-rules.ts';

/** `POST /oid4vci/notification` (OpenID4VCI 1.0 §11): the wallet's word on the credentials it received. */
export async function notification(issuer: IssuerCore, body: unknown, request: PresentedRequest): Promise<void> {
  const { offerId } = await credentialAccess(issuer, request);
  const req = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const id = req.notification_id;
  const event = req.event;
  if (typeof id !== 'string' || offerOf(id) !== offerId)
    throw oauthError('invalid_notification_id', 'The notification_id is unknown');
  const { snapshot } = await issuer.offers.get(offerId);
  if (!sameHash(id, snapshot.context.notificationIdHash))
    throw oauthError('invalid_notification_id', 'The notification_id is unknown');
  if (event !== 'credential_accepted' && event !== 'credential_failure' && event !== 'credential_deleted')
    throw oauthError(
      'invalid_notification_request',
      'event must be credential_accepted, credential_failure or credential_deleted',
    );
  if (req.event_description !== undefined && !isNotificationDescription(req.event_description))
    throw oauthError(
      'invalid_notification_request',
      "event_description must be ASCII text without '\"' or '\\' (OpenID4VCI 1.0 §11.1)",
    );
  const outcome = await issuer.offers.execute(offerId, {
    type: 'issuance.notified',
    at: issuer.clock.now(),
    event,
    ...(request.interactionId ? { interaction_id: request.interactionId } : {}),
  });
  if (!outcome.accepted)
    throw oauthError(
      'invalid_notification_request',
      'Once credential_accepted was sent, credential_failure is refused',
    );
}
