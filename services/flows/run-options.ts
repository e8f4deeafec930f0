/**
 * The options a runnable flow takes, each documented: the flow page shows them as form controls, the
 * API contract lists them per flow, and a run only ever receives declared names with allowed values.
 */
export interface RunOption {
  name: string;
  label: string;
  description: string;
  /** Allowed values (a select); none: free text of `maxLength`. */
  values?: readonly string[];
  default: string;
  maxLength?: number;
}

const CREDENTIAL_CONFIGURATIONS = [
  'UniversityDegreeCredential',
  'MobileDrivingLicenceMsoMdoc',
  'UniversityDegreeCredentialJWT',
  'UniversityDegreeCredentialJWTLD',
  'UniversityDegreeCredentialLDP',
] as const;

const clientAuth: RunOption = {
  name: 'client_auth',
  label: 'Client authentication',
  description: 'How the client proves itself at the token endpoint (RFC 6749 §2.3.1; private_key_jwt: RFC 7523 §2.2).',
  values: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
  default: 'client_secret_basic',
};
const alg: RunOption = {
  name: 'alg',
  label: 'Client assertion algorithm',
  description: 'The JWS algorithm of the private_key_jwt assertion (used with private_key_jwt only).',
  values: ['ES256', 'RS256', 'EdDSA'],
  default: 'ES256',
};
const tokenMode: RunOption = {
  name: 'token_mode',
  label: 'Token mode',
  description:
    'A bearer token, or a DPoP-bound one (RFC 9449): a proof with the token request and with every use of the token.',
  values: ['bearer', 'dpop'],
  default: 'bearer',
};
const clientScope: RunOption = {
  name: 'scope',
  label: 'Scope',
  description:
    'The scope the client asks for at the token endpoint (RFC 6749 §3.3); the resource needs api:read, so api:write alone shows a refusal.',
  values: ['api:read', 'api:read api:write', 'api:write'],
  default: 'api:read',
};
const email: RunOption = {
  name: 'email',
  label: 'Email of the person',
  description: 'The email the agent asks to be bound to when it starts the claim.',
  default: 'person@example.com',
  maxLength: 254,
};
const configuration: RunOption = {
  name: 'credential_configuration_id',
  label: 'Credential configuration',
  description: 'Which credential the issuer offers (SD-JWT VC, mdoc mDL, W3C JWT, JWT-LD or Data Integrity).',
  values: CREDENTIAL_CONFIGURATIONS,
  default: 'UniversityDegreeCredential',
};
const credential: RunOption = {
  name: 'credential',
  label: 'Credential presented',
  description: 'What the holder presents to the verifier: an SD-JWT VC or an mdoc mDL.',
  values: ['sd-jwt', 'mdoc'],
  default: 'sd-jwt',
};

const registration: RunOption = {
  name: 'registration',
  label: 'How the client gets its id',
  description:
    'metadata_document: the client_id is the URL of the runner’s Client ID Metadata Document; dcr: it registers first (RFC 7591).',
  values: ['metadata_document', 'dcr'],
  default: 'metadata_document',
};

const samlBinding: RunOption = {
  name: 'binding',
  label: 'AuthnRequest binding',
  description:
    'How the SP sends its AuthnRequest: HTTP-Redirect (DEFLATE, signature over the query) or HTTP-POST (enveloped signature); SAML bindings §3.4, §3.5.',
  values: ['redirect', 'post'],
  default: 'redirect',
};

const BY_FLOW = new Map<string, readonly RunOption[]>([
  ['oauth2/client-credentials', [clientAuth, alg, tokenMode, clientScope]],
  ['agentauth/register-and-claim', [email]],
  ['oid4vci/pre-authorized-code', [configuration]],
  ['oid4vci/pre-authorized-tx-code', [configuration]],
  ['oid4vci/deferred', [configuration]],
  ['oid4vci/authorization-code', [configuration]],
  ['oid4vp/dcql-direct-post', [credential]],
  ['oid4vp/dcql-direct-post-jwt', [{ ...credential, default: 'mdoc' }]],
  ['oid4vp/dc-api', [credential]],
  ['oid4vp/dc-api-signed', [{ ...credential, default: 'mdoc' }]],
  ['mcp/authorization', [registration]],
  ['saml/web-sso', [samlBinding]],
]);

export function runOptionsOf(protocol: string, flow: string): readonly RunOption[] {
  return BY_FLOW.get(`${protocol}/${flow}`) ?? [];
}

/** The flows each option applies to, for the API contract. */
export function flowsTakingOption(name: string): string[] {
  return [...BY_FLOW].filter(([, options]) => options.some((o) => o.name === name)).map(([flow]) => flow);
}

/** Every option of every flow once, by name (one name means one option everywhere, up to its default). */
export function allRunOptions(): RunOption[] {
  const byName = new Map<string, RunOption>();
  for (const options of BY_FLOW.values()) for (const option of options) byName.set(option.name, option);
  return [...byName.values()];
}

/** Only the flow's declared options, with allowed values, from untrusted input (a form or a body). */
export function pickRunOptions(protocol: string, flow: string, input: unknown): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (!input || typeof input !== 'object') return out;
  for (const option of runOptionsOf(protocol, flow)) {
    const value = Object.hasOwn(input, option.name) ? (input as Record<string, unknown>)[option.name] : undefined;
    if (typeof value !== 'string' || value === '') continue;
    if (option.values ? option.values.includes(value) : value.length <= (option.maxLength ?? 200))
      out[option.name] = value;
  }
  return out;
}
