import { memberAt, type JsonObject } from '../../untrusted/json.ts';
import type { Clock } from '../../clock.ts';
import { clientRequest } from '../../oauth/client-kit.ts';
import { generateHolderKey, type KeyPair } from '../../credentials/keys/index.ts';
import { oauthError } from '../../errors.ts';
import type { DeviceKey } from '../device-key.ts';
import type { ExchangeRecorder, WalletExchanges } from '../exchange.ts';
import { UpstreamError, type OutboundHttp } from '../../outbound.ts';
import type { WalletSettings } from '../settings.ts';
import { configurationsOf, type IssuerView } from './discovery.ts';
import { clientAttestation, clientAttestationPop } from './proofs.ts';
import { IssuerWire, expectOk } from './wire.ts';

export interface IssuanceDeps {
  settings: WalletSettings;
  outbound: OutboundHttp;
  exchanges: WalletExchanges;
  clock: Clock;
  deviceKey: DeviceKey;
  iacaRoots: string[];
  trustedOrigins: ReadonlySet<string>;
  /** Waits between deferred polls (a real pause in service; tests move a clock). */
  wait(ms: number): Promise<void>;
}

/** A configuration whose JWT proofs must carry key attestations (HAIP). */
export const needsKeyAttestation = (configuration: JsonObject | undefined) =>
  memberAt(configuration, 'proof_types_supported', 'jwt', 'key_attestations_required') !== undefined;

/** What every step of the wallet's issuance shares: its dependencies, the clock in seconds, the wires. */
export class IssuanceRuntime {
  private instance?: Promise<KeyPair>;

  constructor(readonly deps: IssuanceDeps) {}

  nowS(): number {
    return Math.floor(this.deps.clock.now() / 1000);
  }

  /** The HAIP wallet instance key (cnf of the client attestation), one per process. */
  private instanceKey(): Promise<KeyPair> {
    this.instance ??= generateHolderKey('ES256');
    return this.instance;
  }

  /** A wire without DPoP or attestation (discovery, offers, metadata). */
  plainWire(recorder: ExchangeRecorder): IssuerWire {
    return new IssuerWire(this.deps.outbound, recorder, this.deps.trustedOrigins);
  }

  /** A wire for one exchange: DPoP when the AS lists algorithms, attestation once HAIP material is on. */
  async wire(recorder: ExchangeRecorder, asMetadata?: JsonObject): Promise<IssuerWire> {
    const dpop =
      Array.isArray(asMetadata?.dpop_signing_alg_values_supported) &&
      asMetadata.dpop_signing_alg_values_supported.includes('ES256')
        ? { key: await generateHolderKey('ES256'), nonces: new Map<string, string>(), nowS: () => this.nowS() }
        : undefined;
    let attestation;
    if (this.deps.settings.haipEnabled && asMetadata) {
      const instance = await this.instanceKey();
      const jwt = await clientAttestation(this.deps.settings, instance, this.nowS());
      const challengeEndpoint =
        typeof asMetadata.challenge_endpoint === 'string' ? asMetadata.challenge_endpoint : undefined;
      const bare = this.plainWire(recorder);
      attestation = {
        attestation: jwt,
        audience: String(asMetadata.issuer),
        pop: async (audience: string) => {
          // Spec wallet behaviour 2: a fresh attestation_challenge in every PoP when the AS has a challenge endpoint.
          const challenge = challengeEndpoint
            ? expectOk(await bare.call('challenge', challengeEndpoint, { method: 'POST' }), 'The challenge endpoint')
                .json.attestation_challenge
            : undefined;
          return clientAttestationPop(
            instance,
            this.deps.settings.attestedClientId,
            audience,
            typeof challenge === 'string' ? challenge : undefined,
            this.nowS(),
          );
        },
      };
    }
    return new IssuerWire(this.deps.outbound, recorder, this.deps.trustedOrigins, dpop, attestation);
  }

  /**
   * HAIP configurations (key attestations required) need the attester material: checked as soon as the
   * metadata names the configuration, before any offer, token or PAR request is sent.
   */
  requireHaipMaterial(view: IssuerView, configurationIds: readonly string[]): void {
    if (this.deps.settings.haipEnabled) return;
    const configurations = configurationsOf(view.metadata);
    const haip = configurationIds.find((id) => needsKeyAttestation(configurations.get(id)));
    if (haip)
      throw oauthError(
        'haip_material_required',
        `${haip} needs key attestations: configure WALLET_CLIENT_ATTESTATION_*_JWK_JSON`,
      );
  }

  /** The token request (DPoP and attestation as the wire was built for). */
  async token(wire: IssuerWire, view: IssuerView, form: Record<string, string>): Promise<JsonObject> {
    const endpoint = view.asMetadata.token_endpoint;
    if (typeof endpoint !== 'string') throw new UpstreamError('The authorization server has no token_endpoint');
    const token = expectOk(
      // The wallet proves itself by attestation (its headers come from the wire), not in the form.
      await wire.call('token', endpoint, clientRequest(form), { side: 'as', attest: true, dpop: true }),
      'The token endpoint',
    ).json;
    if (typeof token.access_token !== 'string') throw new UpstreamError('The token response has no access_token');
    return token;
  }
}
