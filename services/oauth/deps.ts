import { authorizationCodeMachine } from '../../machines/authorization-code.ts';
import type { DPoPServer } from '../dpop/check.ts';
import { interactionMachine } from '../../machines/interaction.ts';
import { refreshFamilyMachine } from '../../machines/refresh-family.ts';
import { singleUseMachine } from '../../machines/single-use.ts';
import type { RevokedAccessTokens } from '../../projections/revoked-access-tokens.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';
import type { KeyRing } from '../keys.ts';
import { sha256 } from '../crypto/random.ts';
import { DPoPNonces } from '../dpop/nonce.ts';
import { oauthClientMachine } from '../../machines/oauth-client.ts';
import { pushedRequestMachine } from '../../machines/pushed-request.ts';
import type { DemoClient } from './demo-clients.ts';
import type { DemoUser } from './demo-users.ts';
import { ClientRegistry } from './clients/registry.ts';
import type { ClientMetadataDocuments } from './clients/metadata-document.ts';
import { Subjects } from './subjects.ts';
import { clientKeys } from './clients/client-keys.ts';
import type { OAuthClient } from './clients/client.ts';
import type { OutboundHttp } from '../outbound.ts';
import type { JWK } from 'jose';

/** What both authorization servers share: actors, demo data, keys, clock and the revocation list. */
export class OAuthDeps {
  readonly codes: ActorRuntime<typeof authorizationCodeMachine>;
  readonly families: ActorRuntime<typeof refreshFamilyMachine>;
  readonly interactions: ActorRuntime<typeof interactionMachine>;
  readonly once: ActorRuntime<typeof singleUseMachine>;
  readonly pushed: ActorRuntime<typeof pushedRequestMachine>;
  readonly clients: ClientRegistry;
  readonly users: ReadonlyMap<string, DemoUser>;
  readonly subjects: Subjects;
  readonly nonces: DPoPNonces;
  readonly clientKeys: (client: OAuthClient) => Promise<JWK[]>;
  readonly keys: KeyRing;
  readonly clock: Clock;
  readonly revoked: RevokedAccessTokens;
  readonly dpopNonceRequired: boolean;

  constructor(
    log: EventLog,
    options: {
      keys: KeyRing;
      clock: Clock;
      clients: DemoClient[];
      users: DemoUser[];
      revoked: RevokedAccessTokens;
      dpopNonceRequired: boolean;
      /** `{base}/oauth2/register/<client_id>` (RFC 7592). */
      registrationUri: (clientId: string) => string;
      documents?: ClientMetadataDocuments;
      /** For client keys at a `jwks_uri`. */
      outbound?: OutboundHttp;
    },
  ) {
    ({
      keys: this.keys,
      clock: this.clock,
      revoked: this.revoked,
      dpopNonceRequired: this.dpopNonceRequired,
    } = options);
    const { keys, clock } = options;
    this.codes = ActorRuntime.of(log, authorizationCodeMachine, 'code');
    this.families = ActorRuntime.of(log, refreshFamilyMachine, 'refresh');
    this.interactions = ActorRuntime.of(log, interactionMachine, 'interaction');
    this.once = ActorRuntime.of(log, singleUseMachine, 'once');
    this.pushed = ActorRuntime.of(log, pushedRequestMachine, 'par');
    this.clients = new ClientRegistry(
      ActorRuntime.of(log, oauthClientMachine, 'client'),
      options.clients,
      clock,
      options.registrationUri,
      options.documents,
    );
    this.users = new Map(options.users.map((u) => [u.id, u]));
    this.subjects = new Subjects(this.users, keys.secret('pairwise-subject'));
    this.clientKeys = (client) => clientKeys(client, options.outbound);
    this.nonces = new DPoPNonces(clock, keys.secret('dpop-nonce'), 'oauth');
  }

  /** Records a single-use value; false when it was seen before. */
  async useOnce(purpose: string, value: string): Promise<boolean> {
    // Almost always a first sighting: appended without a read (a replay conflicts, is reloaded and refused).
    const outcome = await this.once.create(`${purpose}:${sha256(value)}`, {
      type: 'value.used',
      at: this.clock.now(),
      purpose,
    });
    return outcome.accepted;
  }

  /** How this origin's servers check DPoP proofs, on the authorization-server side or at a resource. */
  dpopServer(side: 'as' | 'rs'): DPoPServer {
    return {
      side,
      nowMs: () => this.clock.now(),
      ...(this.dpopNonceRequired ? { nonces: this.nonces } : {}),
      useOnce: (purpose, value) => this.useOnce(purpose, value),
    };
  }

  /** Revokes one access token (RFC 7009) by recording its jti. */
  async revokeAccessToken(jti: string): Promise<void> {
    await this.once.execute(`access-revoked:${jti}`, {
      type: 'value.used',
      at: this.clock.now(),
      purpose: 'revocation',
    });
  }
}
