import * as grpc from '@grpc/grpc-js';
import { certificateInfo } from '../../services/workload/certificate.ts';
import { splitDer } from '../../services/workload/der.ts';
import { nullRecord, recordFrom } from '../../services/untrusted/keys.ts';
import {
  WorkloadApiCallError,
  type JwtBundles,
  type JwtSvid,
  type WorkloadApiConnector,
  type WorkloadApiSession,
  type X509SvidUpdate,
} from '../../services/workload/ports.ts';
import { SECURITY_HEADER, grpcTarget, structToJson, workloadApiClientConstructor } from './definition.ts';

/**
 * The Workload API client: gRPC over the agent's unix socket, every call with the
 * `workload.spiffe.io: true` header. A session keeps the FetchX509SVID and FetchJWTBundles streams
 * open; the X.509 stream ending (agent stopped, socket gone) ends the session.
 */
export interface WorkloadApiClientOptions {
  /** How long to wait for the first X.509-SVID message. */
  connectTimeoutMs?: number;
  /** Deadline of unary calls (FetchJWTSVID, ValidateJWTSVID). */
  callTimeoutMs?: number;
}

interface RawX509Svid {
  spiffe_id: string;
  x509_svid: Buffer;
  x509_svid_key: Buffer;
  bundle: Buffer;
  hint: string;
}
interface RawX509Response {
  svids: RawX509Svid[];
  crl: Buffer[];
  federated_bundles: Record<string, Buffer>;
}
interface RawJwtBundles {
  bundles: Record<string, Buffer>;
}

/** Every certificate of a message must parse, or the whole message is discarded. */
function checked(ders: Uint8Array[]): Uint8Array[] {
  for (const der of ders) certificateInfo(der);
  return ders;
}

function toUpdate(raw: RawX509Response): X509SvidUpdate {
  if (!raw.svids || raw.svids.length === 0) throw new Error('the agent sent no X.509-SVID for this workload');
  // Workload API §4.5: a message with a mandatory field left empty is discarded.
  for (const s of raw.svids) {
    if (!s.spiffe_id || !s.x509_svid?.length || !s.x509_svid_key?.length || !s.bundle?.length)
      throw new Error('an X509SVID message lacks a mandatory field');
  }
  return {
    svids: raw.svids.map((s) => ({
      spiffeId: s.spiffe_id,
      chain: checked(splitDer(s.x509_svid)),
      privateKey: new Uint8Array(s.x509_svid_key),
      bundle: checked(splitDer(s.bundle)),
      ...(s.hint ? { hint: s.hint } : {}),
    })),
    federatedBundles: recordFrom(
      Object.entries(raw.federated_bundles ?? {}).map(([td, der]) => [td, checked(splitDer(der))] as const),
    ),
    crlCount: raw.crl?.length ?? 0,
  };
}

function toJwtBundles(raw: RawJwtBundles): JwtBundles {
  const out: JwtBundles = nullRecord();
  for (const [td, bytes] of Object.entries(raw.bundles ?? {})) {
    try {
      const parsed = JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) out[td] = parsed as JwtBundles[string];
    } catch {
      // a bundle that is not JSON is left out
    }
  }
  return out;
}

const callError = (error: grpc.ServiceError) =>
  new WorkloadApiCallError(grpc.status[error.code] ?? String(error.code), error.details || error.message);

class GrpcWorkloadSession implements WorkloadApiSession {
  readonly ended: Promise<string>;
  private end!: (reason: string) => void;
  private latest?: X509SvidUpdate;
  private bundles: JwtBundles = {};
  private readonly listeners = new Set<(update: X509SvidUpdate) => void>();
  private x509Call?: grpc.ClientReadableStream<RawX509Response>;
  private jwtBundleCall?: grpc.ClientReadableStream<RawJwtBundles>;
  private finished = false;

  constructor(
    private readonly client: grpc.Client & Record<string, any>,
    private readonly callTimeoutMs: number,
  ) {
    this.ended = new Promise((resolve) => {
      this.end = resolve;
    });
  }

  private metadata(): grpc.Metadata {
    const md = new grpc.Metadata();
    md.set(SECURITY_HEADER, 'true');
    return md;
  }

  /** Opens both streams; resolves with the first X.509 message. */
  open(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let first = true;
      const timer = setTimeout(() => {
        if (!first) return;
        first = false;
        reject(new Error(`no X.509-SVID from the Workload API within ${timeoutMs} ms`));
        this.close();
      }, timeoutMs);
      const call = this.client.FetchX509SVID({}, this.metadata()) as grpc.ClientReadableStream<RawX509Response>;
      this.x509Call = call;
      call.on('data', (raw: RawX509Response) => {
        let update: X509SvidUpdate;
        try {
          update = toUpdate(raw);
        } catch (error) {
          if (first) {
            first = false;
            clearTimeout(timer);
            reject(new Error(`unusable X.509-SVID message: ${(error as Error).message}`));
            this.close();
          }
          return; // a malformed later message is skipped; the previous SVID stays in use
        }
        this.latest = update;
        if (first) {
          first = false;
          clearTimeout(timer);
          resolve();
          return;
        }
        for (const listener of this.listeners) listener(update);
      });
      const stop = (reason: string) => {
        clearTimeout(timer);
        if (first) {
          first = false;
          reject(new Error(reason));
        }
        this.finish(reason);
      };
      call.on('error', (error: grpc.ServiceError) =>
        stop(`X.509-SVID stream failed: ${grpc.status[error.code] ?? error.code} ${error.details ?? ''}`.trim()),
      );
      call.on('end', () => stop('X.509-SVID stream ended by the agent'));

      const bundles = this.client.FetchJWTBundles({}, this.metadata()) as grpc.ClientReadableStream<RawJwtBundles>;
      this.jwtBundleCall = bundles;
      bundles.on('data', (raw: RawJwtBundles) => {
        this.bundles = toJwtBundles(raw);
      });
      // The JWT bundle stream failing alone (e.g. an agent without the JWT profile) does not end full mode.
      bundles.on('error', () => undefined);
    });
  }

  x509(): X509SvidUpdate {
    if (!this.latest) throw new Error('no X.509-SVID yet');
    return this.latest;
  }

  onX509(listener: (update: X509SvidUpdate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  jwtBundles(): JwtBundles {
    return this.bundles;
  }

  private deadline(): grpc.CallOptions {
    return { deadline: Date.now() + this.callTimeoutMs };
  }

  fetchJwtSvid(audience: string[], spiffeId?: string): Promise<JwtSvid[]> {
    return new Promise((resolve, reject) => {
      this.client.FetchJWTSVID(
        { audience, spiffe_id: spiffeId ?? '' },
        this.metadata(),
        this.deadline(),
        (error: grpc.ServiceError | null, res: { svids: Array<{ spiffe_id: string; svid: string; hint: string }> }) => {
          if (error) return reject(callError(error));
          resolve(
            (res.svids ?? []).map((s) => ({
              spiffeId: s.spiffe_id,
              token: s.svid,
              ...(s.hint ? { hint: s.hint } : {}),
            })),
          );
        },
      );
    });
  }

  validateJwtSvid(audience: string, token: string): Promise<{ spiffeId: string; claims: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      this.client.ValidateJWTSVID(
        { audience, svid: token },
        this.metadata(),
        this.deadline(),
        (error: grpc.ServiceError | null, res: { spiffe_id: string; claims: unknown }) => {
          if (error) return reject(callError(error));
          resolve({ spiffeId: res.spiffe_id, claims: structToJson(res.claims as never) });
        },
      );
    });
  }

  private finish(reason: string): void {
    if (this.finished) return;
    this.finished = true;
    this.end(reason);
    this.x509Call?.cancel();
    this.jwtBundleCall?.cancel();
    this.client.close();
  }

  close(): void {
    this.finish('closed by the service');
  }
}

/** Connects to the agent named by `SHOWCASE_SPIFFE_SOCKET_PATH`; a fresh channel per attempt. */
export class GrpcWorkloadApiConnector implements WorkloadApiConnector {
  constructor(private readonly options: WorkloadApiClientOptions = {}) {}

  async connect(socketPath: string): Promise<WorkloadApiSession> {
    const Client = workloadApiClientConstructor();
    const client = new Client(grpcTarget(socketPath), grpc.credentials.createInsecure()) as grpc.Client &
      Record<string, any>;
    const session = new GrpcWorkloadSession(client, this.options.callTimeoutMs ?? 5_000);
    await session.open(this.options.connectTimeoutMs ?? 5_000);
    return session;
  }
}
