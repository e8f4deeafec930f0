import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * A client registered at the registration endpoint (RFC 7591), stream `client:<client_id>`. Its
 * metadata is public; of its secret and registration access token only hashes are kept. It lapses 24
 * hours after it was last used (time arrives in events), and a deleted one (RFC 7592 §2.3) is gone.
 */
export interface RegisteredMetadata {
  client_name: string;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';
  token_endpoint_auth_signing_alg?: string;
  scope: string;
  subject_type: 'public' | 'pairwise';
  /** The host pairwise subjects are derived for (OIDC Core §8.1). */
  sector?: string;
  sector_identifier_uri?: string;
  require_pushed_authorization_requests: boolean;
  jwks?: { keys: Record<string, unknown>[] };
  jwks_uri?: string;
  /** Informational members (RFC 7591 §2), kept as registered. */
  client_uri?: string;
  logo_uri?: string;
  tos_uri?: string;
  policy_uri?: string;
  contacts?: string[];
  software_id?: string;
  software_version?: string;
}

export type OAuthClientEvent =
  | {
      type: 'client.registered';
      at: number;
      metadata: RegisteredMetadata;
      secretHash?: string;
      registrationTokenHash: string;
      expiresAt: number;
    }
  | { type: 'client.updated'; at: number; metadata: RegisteredMetadata; registrationTokenHash: string }
  | { type: 'client.read'; at: number; registrationTokenHash: string }
  | { type: 'client.used'; at: number; expiresAt: number; refreshFamily?: string }
  | { type: 'client.deleted'; at: number; revokesFamilies: string[] };

export interface OAuthClientContext {
  metadata?: RegisteredMetadata;
  secretHash?: string;
  registrationTokenHash?: string;
  issuedAt?: number;
  lastUsedAt?: number;
  expiresAt: number;
  /** Refresh families started for the client, revoked when it is deleted. */
  refreshFamilies: string[];
}

type OAuthClientGuardArgs = { context: OAuthClientContext; event: OAuthClientEvent };

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const oauthClientGuards = {
  /** RFC 7591 §3 with our 24-hour lapse: a client not used for a day is gone. */
  stillRegistered: ({ context }: OAuthClientGuardArgs, e: { at: number }) => e.at < context.expiresAt,
};

type E<T extends OAuthClientEvent['type']> = Extract<OAuthClientEvent, { type: T }>;

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const oauthClientUpdates = {
  register: (_: OAuthClientContext, e: E<'client.registered'>) => ({
    metadata: e.metadata,
    secretHash: e.secretHash,
    registrationTokenHash: e.registrationTokenHash,
    issuedAt: e.at,
    lastUsedAt: e.at,
    expiresAt: e.expiresAt,
    refreshFamilies: [],
  }),
  /** RFC 7592 §2.2: the new metadata replaces the old, and a new registration access token the old one. */
  update: (_: OAuthClientContext, e: E<'client.updated'>) => ({
    metadata: e.metadata,
    registrationTokenHash: e.registrationTokenHash,
  }),
  /** RFC 7592 §2.1: a read hands out a new registration access token; only its hash is kept. */
  rotateToken: (_: OAuthClientContext, e: E<'client.read'>) => ({ registrationTokenHash: e.registrationTokenHash }),
  /** The last 100 families are kept for revocation with the client. */
  use: (context: OAuthClientContext, e: E<'client.used'>) => ({
    lastUsedAt: e.at,
    expiresAt: e.expiresAt,
    refreshFamilies: e.refreshFamily
      ? [...context.refreshFamilies, e.refreshFamily].slice(-100)
      : context.refreshFamilies,
  }),
  remove: () => ({ expiresAt: 0 }),
} satisfies Record<string, ContextUpdate<OAuthClientContext>>;

const guarded = {
  guard: { type: 'stillRegistered' as const, params: ({ event }: { event: { at: number } }) => event },
};

export const oauthClientMachine = setup({
  types: { context: {} as OAuthClientContext, events: {} as OAuthClientEvent },
  guards: oauthClientGuards,
  actions: updateActions<OAuthClientContext, OAuthClientEvent, typeof oauthClientUpdates>(oauthClientUpdates),
}).createMachine({
  id: 'oauthClient',
  description:
    'A dynamically registered client (RFC 7591), stream client:<client_id>: managed with its registration access token (RFC 7592); it lapses 24 hours after its last use.',
  initial: 'unregistered',
  context: { expiresAt: 0, refreshFamilies: [] },
  states: {
    unregistered: {
      description: 'No client yet.',
      on: {
        'client.registered': {
          description: 'POST /oauth2/register with valid metadata: 201 with the client (RFC 7591 §3.2.1).',
          target: 'registered',
          actions: 'register',
        },
      },
    },
    registered: {
      description: 'The client may authorize and get tokens until it is deleted or goes unused for 24 hours.',
      on: {
        'client.updated': {
          description: 'PUT to the registration client URI replaces its metadata (RFC 7592 §2.2).',
          ...guarded,
          actions: 'update',
        },
        'client.read': {
          description:
            'GET at the registration client URI (RFC 7592 §2.1): the answer carries a new registration access token.',
          ...guarded,
          actions: 'rotateToken',
        },
        'client.used': {
          description: 'The client authorized or got tokens: its 24 hours start again.',
          ...guarded,
          actions: 'use',
        },
        'client.deleted': {
          description:
            'DELETE at the registration client URI (RFC 7592 §2.3): no more tokens, and its refresh families are revoked.',
          ...guarded,
          target: 'deleted',
          actions: 'remove',
        },
      },
    },
    deleted: { type: 'final', description: 'Deleted by its owner (RFC 7592 §2.3); the client id answers nothing.' },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const oauthClientStates = {
  /** A registered client that was not deleted. */
  registered: inState('registered'),
};
