/**
 * What the runner's own requests are for, when they are not one of the flow's steps: reading public
 * demo data and discovery documents before the protocol begins. Step mode shows it with the pause.
 */
const PREPARATORY: ReadonlyArray<[prefix: string, explanation: string]> = [
  [
    'Read the published demo clients',
    'Before the flow, the runner reads the published demo clients (GET /oauth2/demo/clients) for the client id, secret and keys it will use. They are public demo data (spec §5.6).',
  ],
  [
    'Provider configuration',
    'Discovery: the OpenID Provider metadata (OpenID Connect Discovery 1.0 §4) names the endpoints the next steps call; its issuer must equal the URL it was fetched for (§4.3).',
  ],
  [
    'Provider keys',
    'Discovery: the provider’s JWKS (jwks_uri), the keys that verify the ID token and signed answers to come.',
  ],
  [
    'Discover the target',
    'Discovery at your own server: RFC 8414 metadata (then OpenID Connect Discovery), whose issuer must be the one you named before any secret is sent.',
  ],
  [
    'Protected resource metadata',
    'RFC 9728: the resource names its authorization servers and scopes, so the client knows where to get a token.',
  ],
  [
    'Transmitter configuration',
    'Shared Signals discovery (SSF 1.0 §7): the transmitter’s metadata names its stream management endpoints and JWKS.',
  ],
];

/** The explanation of a runner's request that is not a flow step; a general one for any other. */
export function preparatoryExplanation(step: string, method: string, url: string): string {
  const known = PREPARATORY.find(([prefix]) => step.startsWith(prefix));
  if (known) return known[1];
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // not an absolute URL: shown as it is
  }
  return `${step}: a request the runner makes on its way through the flow (${method} ${path}); the flow's steps above say where it leads.`;
}
