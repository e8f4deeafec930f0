import type { JsonObject } from '../../untrusted/json.ts';
import type { WalletSession } from '../sessions.ts';
import { UpstreamError } from '../../outbound.ts';
import { credentialEncryption, credentialRequest } from './credential-request.ts';
import { configurationsOf, issuerKeys, type IssuerView } from './discovery.ts';
import { keyAttestation, keyProofs, proofCount, proofKeys } from './proofs.ts';
import { needsKeyAttestation, type IssuanceRuntime } from './runtime.ts';
import { storeCredentials } from './store.ts';
import { accessTokenOf, expectOk, interactionId, type IssuerWire } from './wire.ts';

const DEFERRED_POLLS = 10;

/** Nonce, key proofs, the credential request (encrypted when asked), deferred polling, storing, notification. */
export async function receiveCredentials(
  rt: IssuanceRuntime,
  session: WalletSession,
  wire: IssuerWire,
  view: IssuerView,
  token: JsonObject,
  configurationIds: string[],
  options: { anonymous: boolean },
): Promise<Record<string, unknown>> {
  const credentialEndpoint = view.credentialEndpoint;
  if (!credentialEndpoint) throw new UpstreamError('The issuer metadata has no usable credential_endpoint');
  const accessToken = accessTokenOf(token);
  const jwks = await issuerKeys(wire, view);
  const identifiers = credentialIdentifiers(token);
  const stored: string[] = [];
  for (const configurationId of configurationIds) {
    const configuration = configurationsOf(view.metadata).get(configurationId);
    if (!configuration) throw new UpstreamError(`The issuer metadata has no configuration ${configurationId}`);
    const format = String(configuration.format);
    const nonce =
      typeof view.metadata.nonce_endpoint === 'string'
        ? expectOk(await wire.call('nonce', view.metadata.nonce_endpoint, { method: 'POST' }), 'The nonce endpoint')
            .json.c_nonce
        : undefined;
    const primary = format === 'mso_mdoc' ? rt.deps.deviceKey.pair : session.holder;
    const keys = await proofKeys(primary, proofCount(view.metadata));
    const attestationNeeded = needsKeyAttestation(configuration);
    rt.requireHaipMaterial(view, [configurationId]);
    const attestation = attestationNeeded
      ? await keyAttestation(rt.deps.settings, keys, typeof nonce === 'string' ? nonce : undefined, rt.nowS())
      : undefined;
    const proofs = await keyProofs({
      keys,
      audience: view.credentialIssuer,
      nonce: typeof nonce === 'string' ? nonce : undefined,
      clientId: options.anonymous ? undefined : rt.deps.settings.attestedClientId,
      keyAttestation: attestation,
      nowS: rt.nowS(),
      recorder: wire.recorder,
    });
    const identifier = identifiers.get(configurationId);
    const request: Record<string, unknown> = {
      ...(identifier ? { credential_identifier: identifier } : { credential_configuration_id: configurationId }),
      proofs: { jwt: proofs },
    };
    const encryption = await credentialEncryption(view, rt.deps.settings.haipEnabled);
    if (encryption.response)
      request.credential_response_encryption = { jwk: encryption.response.publicJwk, enc: encryption.response.enc };
    let response = await credentialRequest(wire, credentialEndpoint, request, accessToken, encryption, 'credential');
    let polls = 0;
    while (response.status === 202) {
      if (++polls > DEFERRED_POLLS || typeof view.metadata.deferred_credential_endpoint !== 'string')
        throw new UpstreamError('The deferred credential was not ready in time');
      const interval = Number(response.body.interval);
      await rt.deps.wait((Number.isFinite(interval) && interval > 0 ? Math.min(interval, 60) : 5) * 1000);
      response = await credentialRequest(
        wire,
        view.metadata.deferred_credential_endpoint,
        {
          transaction_id: response.body.transaction_id,
          ...(request.credential_response_encryption
            ? { credential_response_encryption: request.credential_response_encryption }
            : {}),
        },
        accessToken,
        encryption,
        'deferred',
      );
    }
    const credentials = Array.isArray(response.body.credentials) ? response.body.credentials : [];
    if (credentials.length === 0) throw new UpstreamError('The credential response carries no credentials');
    stored.push(
      ...(await storeCredentials(
        rt,
        session,
        wire.recorder,
        credentials.map((c: { credential?: unknown }) => c?.credential),
        keys,
        { format, configurationId, view, jwks },
      )),
    );
    if (typeof response.body.notification_id === 'string' && typeof view.metadata.notification_endpoint === 'string') {
      const notified = await wire.call(
        'notification',
        view.metadata.notification_endpoint,
        {
          json: { notification_id: response.body.notification_id, event: 'credential_accepted' },
          accessToken,
          headers: { 'x-fapi-interaction-id': interactionId() },
        },
        { side: 'rs' },
      );
      if (notified.status !== 204)
        throw new UpstreamError(`The notification endpoint answered HTTP ${notified.status}, not 204`, notified.status);
    }
  }
  return {
    status: 'issued',
    credential_ids: stored,
    active_credential_id: session.activeCredentialId,
    credential_source: 'offer',
    ...wire.recorder.view(),
  };
}

/** `authorization_details[].credential_identifiers` of a token response, by configuration (behaviour 8). */
function credentialIdentifiers(token: JsonObject): Map<string, string> {
  const out = new Map<string, string>();
  for (const detail of Array.isArray(token.authorization_details) ? token.authorization_details : []) {
    const id = detail?.credential_identifiers?.[0];
    if (typeof detail?.credential_configuration_id === 'string' && typeof id === 'string')
      out.set(detail.credential_configuration_id, id);
  }
  return out;
}
