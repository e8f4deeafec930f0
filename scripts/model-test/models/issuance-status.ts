/** Issuance model steps once a credential exists: notifications and status changes. */
import { expectAnswer, expectEqual, type Step } from '../model.ts';
import type { IssuanceModelState } from './issuance-steps.ts';

type S = IssuanceModelState;
export const bearer = (m: S) => ({ authorization: `Bearer ${m.accessToken}` });

/**
 * POST …/credentials/0/status with the creator's status token: 404 before a credential, 409 once
 * revoked (revocation is final), else 200. A wallet-initiated issuance has no creator: always 401.
 */
export function changeStatus(status: 'valid' | 'suspended' | 'revoked'): Step<IssuanceModelState> {
  return {
    name: `set credential 0 ${status}`,
    check: (m) => m.streamId !== undefined,
    async run(m, { http }) {
      const offerId = m.streamId!.slice('issuance:'.length);
      const answer = await http.call(`/oid4vci/offers/${offerId}/credentials/0/status`, {
        json: { status },
        headers: m.offer ? { authorization: `Bearer ${m.offer.statusToken}` } : {},
      });
      if (!m.offer) return expectAnswer('status without a creator', answer, 401, 'invalid_token');
      if (m.statuses.length === 0) return expectAnswer('status of a credential not issued', answer, 404, 'not_found');
      if (m.statuses[0] === 'revoked') return expectAnswer('status after revocation', answer, 409, 'invalid_request');
      expectAnswer('status change', answer, 200);
      expectEqual('status', answer.body.status, status);
      m.statuses[0] = status;
    },
  };
}

/** POST /oid4vci/notification (OpenID4VCI 1.0 §11). */
export function notify(event: 'credential_accepted' | 'credential_failure'): Step<S> {
  return {
    name: `notify ${event}`,
    check: (m) => m.notificationId !== undefined,
    async run(m, { http }) {
      const answer = await http.call('/oid4vci/notification', {
        json: { notification_id: m.notificationId, event },
        headers: bearer(m),
      });
      // OpenID4VCI 1.0 §11: once accepted, a failure is refused (decisions §8).
      if (event === 'credential_failure' && m.accepted)
        return expectAnswer('failure after acceptance', answer, 400, 'invalid_notification_request');
      expectAnswer('notification', answer, 204);
      if (event === 'credential_accepted') m.accepted = true;
      m.state = 'notified';
    },
  };
}
