import { attr, complex, multiValued, type AttributeDef, type SchemaDef } from './schema-types.ts';

/** The schemas of this service provider (RFC 7643 §4, and the draft Agent resource). */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
/** After draft-wzdk-scim-agent-resource-00 (June 2026), a draft: its attributes may change. */
export const AGENT_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Agent';
/** This project's extension: an Agent that mirrors an agent registered at `/agentauth` (docs/scim.md). */
export const AGENTAUTH_SCHEMA = 'urn:portico:params:scim:schemas:extension:agentauth:1.0:Agent';

const readOnly = { mutability: 'readOnly' } as const;

/** RFC 7643 §3.1: `id`, `externalId` and `meta`, part of every resource without a schema of their own. */
export const COMMON_ATTRIBUTES: AttributeDef[] = [
  attr('id', 'string', 'A unique identifier for the resource, assigned by the service provider.', {
    caseExact: true,
    mutability: 'readOnly',
    returned: 'always',
    uniqueness: 'server',
  }),
  attr('externalId', 'string', 'An identifier for the resource as defined by the provisioning client.', {
    caseExact: true,
  }),
  complex(
    'meta',
    'Resource metadata.',
    [
      attr('resourceType', 'string', 'The name of the resource type.', { ...readOnly, caseExact: true }),
      attr('created', 'dateTime', 'When the resource was added.', readOnly),
      attr('lastModified', 'dateTime', 'When the resource was last changed.', readOnly),
      attr('location', 'reference', 'The URI of the resource.', {
        ...readOnly,
        caseExact: true,
        referenceTypes: ['uri'],
      }),
      attr('version', 'string', 'The version (weak entity tag) of the resource.', { ...readOnly, caseExact: true }),
    ],
    readOnly,
  ),
];

const reference = (resourceTypes: string[], description: string, options = {}) =>
  attr('$ref', 'reference', description, { caseExact: true, referenceTypes: resourceTypes, ...options });

const stringValue = (description: string, options = {}) => attr('value', 'string', description, options);

const userAttributes: AttributeDef[] = [
  attr('userName', 'string', 'The unique identifier of the user, unique per tenant, case-insensitively.', {
    required: true,
    uniqueness: 'server',
  }),
  complex('name', "The components of the user's name.", [
    attr('formatted', 'string', 'The full name, formatted for display.'),
    attr('familyName', 'string', 'The family name.'),
    attr('givenName', 'string', 'The given name.'),
    attr('middleName', 'string', 'The middle name(s).'),
    attr('honorificPrefix', 'string', 'The honorific prefix(es), e.g. "Ms.".'),
    attr('honorificSuffix', 'string', 'The honorific suffix(es), e.g. "III".'),
  ]),
  attr('displayName', 'string', 'The name of the user, suitable for display.'),
  attr('nickName', 'string', 'The casual way to address the user.'),
  attr('profileUrl', 'reference', "A URI of the user's online profile.", { referenceTypes: ['external'] }),
  attr('title', 'string', 'The user\'s title, such as "Vice President".'),
  attr('userType', 'string', 'The relationship between the organization and the user.'),
  attr('preferredLanguage', 'string', "The user's preferred written or spoken language (RFC 7231 §5.3.5)."),
  attr('locale', 'string', "The user's default location, for localization."),
  attr('timezone', 'string', "The user's time zone, in the IANA Time Zone database format."),
  attr('active', 'boolean', "The user's administrative status; false disables the user."),
  attr('password', 'string', "The user's cleartext password, for setting only: never returned, kept only as a hash.", {
    mutability: 'writeOnly',
    returned: 'never',
  }),
  multiValued('emails', 'Email addresses for the user.', stringValue('An email address.'), {
    types: ['work', 'home', 'other'],
  }),
  multiValued('phoneNumbers', 'Phone numbers for the user.', stringValue('A phone number (RFC 3966).'), {
    types: ['work', 'home', 'mobile', 'fax', 'pager', 'other'],
  }),
  multiValued('ims', 'Instant messaging addresses for the user.', stringValue('An instant messaging address.')),
  multiValued(
    'photos',
    'URLs of photos of the user.',
    attr('value', 'reference', 'The URL of a photo.', {
      referenceTypes: ['external'],
    }),
    { types: ['photo', 'thumbnail'] },
  ),
  complex(
    'addresses',
    'Physical mailing addresses for the user.',
    [
      attr('formatted', 'string', 'The full mailing address, formatted for display.'),
      attr('streetAddress', 'string', 'The full street address.'),
      attr('locality', 'string', 'The city or locality.'),
      attr('region', 'string', 'The state or region.'),
      attr('postalCode', 'string', 'The zip code or postal code.'),
      attr('country', 'string', 'The country name (ISO 3166-1 alpha-2).'),
      attr('type', 'string', 'A label indicating the function of the address.', {
        canonicalValues: ['work', 'home', 'other'],
      }),
      attr('primary', 'boolean', 'The primary mailing address.'),
    ],
    { multiValued: true },
  ),
  multiValued(
    'groups',
    'The groups the user belongs to, directly or through a nested group; changed through the Group resources.',
    stringValue("The group's id.", readOnly),
    { ...readOnly, types: ['direct', 'indirect'], extra: [reference(['Group'], 'The URI of the group.', readOnly)] },
  ),
  multiValued('entitlements', 'The entitlements of the user.', stringValue('An entitlement.')),
  multiValued('roles', 'The roles of the user.', stringValue('A role.')),
  multiValued(
    'x509Certificates',
    'The X.509 certificates of the user.',
    attr('value', 'binary', 'A DER certificate, base64.'),
  ),
];

const enterpriseAttributes: AttributeDef[] = [
  attr('employeeNumber', 'string', 'A numeric or alphanumeric identifier assigned by the organization.'),
  attr('costCenter', 'string', 'The name of a cost center.'),
  attr('organization', 'string', 'The name of an organization.'),
  attr('division', 'string', 'The name of a division.'),
  attr('department', 'string', 'The name of a department.'),
  complex('manager', "The user's manager.", [
    stringValue("The id of the manager's User resource."),
    reference(['User'], "The URI of the manager's User resource."),
    attr('displayName', 'string', "The manager's display name.", readOnly),
  ]),
];

const groupAttributes: AttributeDef[] = [
  attr('displayName', 'string', 'A human-readable name for the group.', { required: true }),
  complex(
    'members',
    'A list of the members of the group: users and groups.',
    [
      stringValue('The id of the member resource.', { mutability: 'immutable', caseExact: true }),
      reference(['User', 'Group'], 'The URI of the member resource.', { mutability: 'immutable' }),
      attr('display', 'string', "The member's display name.", readOnly),
      attr('type', 'string', 'The type of the member.', {
        mutability: 'immutable',
        canonicalValues: ['User', 'Group'],
      }),
    ],
    { multiValued: true },
  ),
];

const agentAttributes: AttributeDef[] = [
  attr('name', 'string', 'The name of the agent, unique per tenant.', { required: true, uniqueness: 'server' }),
  attr('displayName', 'string', 'A human-readable name for the agent.'),
  attr('agentType', 'string', 'The kind of agent, such as "Assistant".'),
  attr('description', 'string', 'What the agent does.'),
  attr('active', 'boolean', "The agent's administrative status."),
  multiValued('owners', 'The users or groups responsible for the agent.', stringValue('The id of the owner.'), {
    types: ['User', 'Group'],
    extra: [reference(['User', 'Group'], 'The URI of the owner.')],
  }),
];

const agentAuthAttributes: AttributeDef[] = [
  attr(
    'claimToken',
    'string',
    "The agent's claim token from POST /agentauth/identity: proof of control, never stored or returned.",
    {
      mutability: 'writeOnly',
      returned: 'never',
      caseExact: true,
    },
  ),
  attr('agentId', 'string', 'The AgentAuth agent this resource mirrors.', { ...readOnly, caseExact: true }),
  attr('standing', 'string', "The agent's standing at /agentauth: unclaimed, claiming, claimed or revoked.", {
    ...readOnly,
    canonicalValues: ['unclaimed', 'claiming', 'claimed', 'revoked'],
  }),
  attr('ownerEmail', 'string', 'The person who claimed the agent, once claimed.', readOnly),
];

export const SCHEMAS: readonly SchemaDef[] = [
  { id: USER_SCHEMA, name: 'User', description: 'User Account (RFC 7643 §4.1)', attributes: userAttributes },
  {
    id: ENTERPRISE_SCHEMA,
    name: 'EnterpriseUser',
    description: 'Enterprise User (RFC 7643 §4.3)',
    attributes: enterpriseAttributes,
  },
  { id: GROUP_SCHEMA, name: 'Group', description: 'Group (RFC 7643 §4.2)', attributes: groupAttributes },
  {
    id: AGENT_SCHEMA,
    name: 'Agent',
    description: 'AI agent, after draft-wzdk-scim-agent-resource-00 (a draft; the attributes may change)',
    attributes: agentAttributes,
  },
  {
    id: AGENTAUTH_SCHEMA,
    name: 'AgentAuthAgent',
    description:
      "Portico's extension: an Agent linked, by its claim token, to an agent registered at /agentauth; read-only, and its DELETE revokes the agent",
    attributes: agentAuthAttributes,
  },
];

export const schemaById = (id: string): SchemaDef | undefined =>
  SCHEMAS.find((s) => s.id.toLowerCase() === id.toLowerCase());
