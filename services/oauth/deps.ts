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
import type { DemoClient } from './demo-clients.ts';
import type { DemoUser } from './demo-users.ts';

/** What both authorization servers share: actors, demo data, keys, clock and the revocation list. */
export class OAuthDeps {
  readonly codes: ActorRuntime<typeof authorizationCodeMachine>;
  readonly families: ActorRuntime<typeof refreshFamilyMachine>;
  readonly interactions: ActorRuntime<typeof interactionMachine>;
  readonly once: ActorRuntime<typeof singleUseMachine>;
  readonly clients: ReadonlyMap<string, DemoClient>;
  readonly users: ReadonlyMap<string, DemoUser>;
  readonly nonces: DPoPNonces;

  constructor(
    log: EventLog,
    readonly keys: KeyRing,
    readonly clock: Clock,
    clients: DemoClient[],
    users: DemoUser[],
    readonly revoked: RevokedAccessTokens,
    readonly dpopNonceRequired: boolean,
  ) {
    this.codes = new ActorRuntime(log, authorizationCodeMachine, 'code');
    this.families = new ActorRuntime(log, refreshFamilyMachine, 'refresh');
    this.interactions = new ActorRuntime(log, interactionMachine, 'interaction');
    this.once = new ActorRuntime(log, singleUseMachine, 'once');
    this.clients = new Map(clients.map((c) => [c.client_id, c]));
    this.users = new Map(users.map((u) => [u.id, u]));
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
