import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Clock } from '../clock.ts';
import { oauthError } from '../errors.ts';
import type { EventLog } from '../event-log.ts';
import {
  bundleKeys,
  BundleSequence,
  jwtAuthorities,
  knownTrustDomains,
  REFRESH_HINT_SECONDS,
  x509Authorities,
} from './bundle.ts';
import { certificateInfo } from './certificate.ts';
import { x509ChainOf } from './chain-input.ts';
import { jwtAuthDemo, mtlsDemo, rotationReport, type DemoReport } from './demos.ts';
import { certificatesPem } from './der.ts';
import { SpiffeMode } from './mode.ts';
import {
  WorkloadApiCallError,
  type MtlsDialer,
  type WorkloadApiConnector,
  type WorkloadApiSession,
  type X509SvidUpdate,
} from './ports.ts';
import { SvidRotations } from './rotations.ts';
import { SPIFFE_ENDPOINTS, type SpiffeSettings } from './settings.ts';
import { parseSpiffeId, trustDomainOf } from './spiffe-id.ts';
import { svidView } from './svid-view.ts';
import { trustBundleView } from './trust-bundle-view.ts';
import { validateJwtSvid, type JwtVerdict } from './validate-jwt.ts';
import { summary, validateX509Svid, type X509Verdict } from './validate-x509.ts';

export const unavailable = () => oauthError('temporarily_unavailable', 'SPIFFE Workload API unavailable');

const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => Math.floor(ms / 1000);

/** gRPC failures that mean the agent went away during the call. */
const AGENT_GONE = new Set(['UNAVAILABLE', 'CANCELLED', 'DEADLINE_EXCEEDED']);

/**
 * The workload identity service in full mode: every `/spiffe/*` answer is built from the live
 * Workload API session (SVIDs, bundles, JWT calls). Without a session (demo mode, or the agent gone)
 * each operation throws the decisions' 503. Rotations seen on the X.509 stream go to the event log.
 */
export class WorkloadIdentity {
  readonly mode: SpiffeMode;
  readonly rotations: SvidRotations;
  private readonly sequence = new BundleSequence();
  /** Recording of stream messages, in arrival order. */
  private recording: Promise<unknown> = Promise.resolve();
  private readonly dialer?: MtlsDialer;

  constructor(
    log: EventLog,
    readonly settings: SpiffeSettings,
    private readonly clock: Clock,
    deps: { connector?: WorkloadApiConnector; dialer?: MtlsDialer } = {},
  ) {
    this.mode = new SpiffeMode(log, settings, clock, deps.connector);
    this.rotations = new SvidRotations(log, clock);
    this.dialer = deps.dialer;
    this.mode.onConnected((session) => {
      session.onX509((update) => void this.record(update));
      return this.record(session.x509());
    });
  }

  private record(update: X509SvidUpdate): Promise<unknown> {
    this.recording = this.recording.then(() => this.rotations.observe(update)).catch(() => undefined);
    return this.recording;
  }

  /** Resolves when every stream message received so far is recorded (for tests and shutdown). */
  recorded(): Promise<unknown> {
    return this.recording;
  }

  /** The live session, or the demo-mode 503. */
  session(): WorkloadApiSession {
    const session = this.mode.session();
    if (!session) throw unavailable();
    return session;
  }

  private defaultSvid(session = this.session()) {
    const svid = session.x509().svids[0];
    if (!svid) throw unavailable();
    return svid;
  }

  private callFailed(error: unknown): never {
    if (error instanceof WorkloadApiCallError && AGENT_GONE.has(error.code)) throw unavailable();
    if (error instanceof WorkloadApiCallError)
      throw oauthError(
        'invalid_request',
        `The Workload API refused the call: ${error.code} ${error.message}`.slice(0, 300),
      );
    throw unavailable();
  }

  async status() {
    const session = this.session();
    const { context } = await this.mode.current();
    const svid = this.defaultSvid(session);
    const info = certificateInfo(svid.chain[0]);
    const rotations = (await this.rotations.history(svid.spiffeId)).filter((r) => r.type === 'svid.rotated').length;
    return {
      mode: 'full',
      trust_domain: this.settings.trustDomain,
      spiffe_id: svid.spiffeId,
      workload_api: {
        socket_path: this.settings.socketPath,
        connected_at: context.connectedAt ? iso(context.connectedAt) : null,
      },
      svid: {
        serial: info.serial,
        not_after: info.notAfter.toISOString(),
        expires_in_seconds: seconds(info.notAfter.getTime() - this.clock.now()),
      },
      identities: session.x509().svids.length,
      bundle: {
        x509_authorities: x509Authorities(session, this.settings.trustDomain).length,
        jwt_authorities: jwtAuthorities(session, this.settings.trustDomain).length,
        trust_domains: knownTrustDomains(session),
      },
      rotations_observed: rotations,
      spire_server_address: this.settings.spireServerAddress,
      endpoints: SPIFFE_ENDPOINTS.map((e) => `${e.method} ${e.path}`),
    };
  }

  x509Svid() {
    const svid = this.defaultSvid();
    const info = certificateInfo(svid.chain[0]);
    return {
      spiffe_id: svid.spiffeId,
      ...(svid.hint ? { hint: svid.hint } : {}),
      serial: info.serial,
      not_before: info.notBefore.toISOString(),
      not_after: info.notAfter.toISOString(),
      issuer: info.issuer,
      subject: info.subject,
      public_key_algorithm: info.publicKey.crv
        ? `${info.publicKey.kty} ${info.publicKey.crv}`
        : info.publicKey.bits
          ? `${info.publicKey.kty} ${info.publicKey.bits}`
          : info.publicKey.kty,
      public_key: info.publicKey,
      signature_algorithm: info.signatureAlgorithm,
      san_uris: info.uriSans,
      san_dns: info.dnsSans,
      is_ca: info.isCa,
      key_usage: info.keyUsage ?? [],
      extended_key_usage: info.extendedKeyUsage ?? [],
      fingerprint_sha256: info.fingerprint,
      chain: svid.chain.map((der) => summary(certificateInfo(der))),
      chain_pem: '/spiffe/svid/x509/chain',
    };
  }

  chainPem(): string {
    return certificatesPem(this.defaultSvid().chain);
  }

  async jwtSvid(audiences: string[]) {
    const session = this.session();
    let svids;
    try {
      svids = await session.fetchJwtSvid(audiences);
    } catch (error) {
      this.callFailed(error);
    }
    const first = svids[0];
    if (!first) throw unavailable();
    let header: Record<string, unknown> = {};
    let claims: Record<string, unknown> = {};
    try {
      header = decodeProtectedHeader(first.token) as Record<string, unknown>;
      claims = decodeJwt(first.token) as Record<string, unknown>;
    } catch {
      // the agent's token is shown as it came
    }
    return {
      spiffe_id: first.spiffeId,
      ...(first.hint ? { hint: first.hint } : {}),
      audience: audiences,
      svid: first.token,
      header,
      claims,
      ...(typeof claims.exp === 'number' ? { expires_at: iso(claims.exp * 1000) } : {}),
    };
  }

  async svidInfo() {
    const svid = this.defaultSvid();
    const state = await this.rotations.state(svid.spiffeId);
    return svidView(svid, this.clock.now(), state.rotations);
  }

  async workload() {
    const session = this.session();
    const update = session.x509();
    const { context } = await this.mode.current();
    const svid = this.defaultSvid(session);
    const id = parseSpiffeId(svid.spiffeId);
    return {
      spiffe_id: svid.spiffeId,
      trust_domain: id.ok ? id.value.trustDomain : null,
      path: id.ok ? id.value.path : null,
      identities: update.svids.map((s) => {
        const info = certificateInfo(s.chain[0]);
        return {
          spiffe_id: s.spiffeId,
          ...(s.hint ? { hint: s.hint } : {}),
          serial: info.serial,
          not_after: info.notAfter.toISOString(),
          default: s === svid,
        };
      }),
      federated_trust_domains: Object.keys(update.federatedBundles).map(trustDomainOf).sort(),
      crl_count: update.crlCount,
      workload_api: {
        socket_path: this.settings.socketPath,
        security_header: 'workload.spiffe.io: true',
        connected_at: context.connectedAt ? iso(context.connectedAt) : null,
        streams: ['FetchX509SVID', 'FetchJWTBundles'],
      },
    };
  }

  bundleJwks() {
    const session = this.session();
    const keys = bundleKeys(session, this.settings.trustDomain);
    return {
      keys,
      spiffe_sequence: this.sequence.observe(this.settings.trustDomain, keys, this.clock.now()),
      spiffe_refresh_hint: REFRESH_HINT_SECONDS,
    };
  }

  trustBundle() {
    const session = this.session();
    const td = this.settings.trustDomain;
    const sequence = this.sequence.observe(td, bundleKeys(session, td), this.clock.now());
    return trustBundleView(session, td, sequence);
  }

  async validateJwt(body: { token: string; audience: string }): Promise<JwtVerdict> {
    return validateJwtSvid(this.session(), {
      token: body.token.trim(),
      audience: body.audience,
      now: this.clock.now(),
    });
  }

  /** `pem`: PEM text with one or more certificates; `chain`: PEM blocks or base64 DER, leaf first. */
  async validateX509(body: { pem?: string; chain?: string[] }): Promise<X509Verdict> {
    const session = this.session();
    const chain = x509ChainOf(body);
    return validateX509Svid(session, { chain, now: this.clock.now(), ownTrustDomain: this.settings.trustDomain });
  }

  async mtlsDemo(): Promise<DemoReport> {
    const session = this.session();
    if (!this.dialer) throw unavailable();
    return mtlsDemo(session, {
      dialer: this.dialer,
      address: this.settings.spireServerAddress,
      trustDomain: this.settings.trustDomain,
      now: this.clock.now(),
    });
  }

  async jwtAuthDemo(audience?: string): Promise<DemoReport> {
    const session = this.session();
    return jwtAuthDemo(session, {
      audience: audience ?? `spiffe://${this.settings.trustDomain}/spire/server`,
      trustDomain: this.settings.trustDomain,
      now: this.clock.now(),
    });
  }

  async rotationDemo() {
    const svid = this.defaultSvid();
    await this.recording;
    return rotationReport(svid, await this.rotations.history());
  }
}
