/** The transmitter's settings and its configuration metadata (SSF 1.0 §7.1). */

export const PUSH = 'urn:ietf:rfc:8935';
export const POLL = 'urn:ietf:rfc:8936';

export interface SsfSettings {
  /** The transmitter's issuer: the main origin, `{base}`. */
  issuer: string;
  /** Where its SET signing keys are published: the OpenID Provider's JWKS. */
  jwksUri: string;
  /** Seconds between verification requests (SSF 1.0 §8.1.1). */
  minVerificationInterval: number;
  /** Streams one client may hold. */
  maxStreamsPerClient: number;
  /** The longest a poll waits for a SET (RFC 8936 §2.1). */
  longPollMs: number;
}

export const ssfSettings = (base: string, jwksUri: string): SsfSettings => ({
  issuer: base,
  jwksUri,
  minVerificationInterval: 30,
  maxStreamsPerClient: 5,
  longPollMs: 30_000,
});

/** `GET /.well-known/ssf-configuration` (SSF 1.0 §7.1). */
export const transmitterConfiguration = (s: SsfSettings) => ({
  spec_version: '1_0',
  issuer: s.issuer,
  jwks_uri: s.jwksUri,
  delivery_methods_supported: [PUSH, POLL],
  configuration_endpoint: `${s.issuer}/ssf/streams`,
  status_endpoint: `${s.issuer}/ssf/status`,
  add_subject_endpoint: `${s.issuer}/ssf/subjects:add`,
  remove_subject_endpoint: `${s.issuer}/ssf/subjects:remove`,
  verification_endpoint: `${s.issuer}/ssf/verify`,
  authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6749' }],
  default_subjects: 'NONE',
});
