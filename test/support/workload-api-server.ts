import 'reflect-metadata';
import * as grpc from '@grpc/grpc-js';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { rmSync } from 'node:fs';
import { SECURITY_HEADER, jsonToStruct, workloadApiClientConstructor } from '../../adapters/workload-api/definition.ts';
import type { IssuedSvid, TestTrustDomain } from './spiffe-ca.ts';

/**
 * A SPIFFE Workload API agent for tests: the real proto (adapters/workload-api/workload.proto) over a
 * real unix socket, SVIDs from a TestTrustDomain. Calls without the `workload.spiffe.io: true` header
 * are refused with InvalidArgument, as the standard requires. `rotate()` pushes a new SVID on every
 * open X.509 stream; `stop()` goes away like a killed agent; `start()` comes back on the same socket.
 */
export class TestWorkloadApiServer {
  private server?: grpc.Server;
  private readonly x509Streams = new Set<grpc.ServerWritableStream<unknown, unknown>>();
  private readonly jwtBundleStreams = new Set<grpc.ServerWritableStream<unknown, unknown>>();
  svid!: IssuedSvid;
  /** Calls refused for a missing security header, by method. */
  readonly refused: string[] = [];
  /** Every call received, by method. */
  readonly calls: string[] = [];
  /** JWT-SVID lifetime in seconds. */
  jwtTtl = 300;

  constructor(
    readonly domain: TestTrustDomain,
    readonly socketPath: string,
    readonly spiffeId = `spiffe://${domain.trustDomain}/ns/portico/sa/workload`,
  ) {}

  get address(): string {
    return `unix://${this.socketPath}`;
  }

  async start(): Promise<void> {
    this.svid ??= await this.domain.issue(this.spiffeId);
    rmSync(this.socketPath, { force: true });
    const server = new grpc.Server();
    server.addService(workloadApiClientConstructor().service, this.handlers());
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(this.address, grpc.ServerCredentials.createInsecure(), (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    this.server = server;
  }

  /** Goes away at once: open streams are cut, the socket closes. */
  stop(): void {
    this.server?.forceShutdown();
    this.server = undefined;
    this.x509Streams.clear();
    this.jwtBundleStreams.clear();
  }

  /** Issues a new SVID for the same SPIFFE ID and pushes it on every open X.509 stream. */
  async rotate(): Promise<IssuedSvid> {
    this.svid = await this.domain.issue(this.spiffeId);
    for (const call of this.x509Streams) call.write(this.x509Response());
    return this.svid;
  }

  get openX509Streams(): number {
    return this.x509Streams.size;
  }

  private x509Response() {
    return {
      svids: [
        {
          spiffe_id: this.svid.spiffeId,
          x509_svid: Buffer.concat(this.svid.chain),
          x509_svid_key: Buffer.from(this.svid.key),
          bundle: Buffer.concat(this.domain.bundle()),
          hint: 'internal',
        },
      ],
      crl: [],
      federated_bundles: {},
    };
  }

  private jwtBundles() {
    return { bundles: { [`spiffe://${this.domain.trustDomain}`]: Buffer.from(JSON.stringify(this.domain.jwks())) } };
  }

  private authorized(method: string, metadata: grpc.Metadata): boolean {
    this.calls.push(method);
    if (metadata.get(SECURITY_HEADER)[0] === 'true') return true;
    this.refused.push(method);
    return false;
  }

  private handlers(): grpc.UntypedServiceImplementation {
    const refusal = { code: grpc.status.INVALID_ARGUMENT, details: 'security header missing from request' };
    const stream =
      (method: string, set: Set<grpc.ServerWritableStream<unknown, unknown>>, first: () => unknown) =>
      (call: grpc.ServerWritableStream<unknown, unknown>) => {
        if (!this.authorized(method, call.metadata)) {
          call.emit('error', refusal);
          return;
        }
        set.add(call);
        call.on('cancelled', () => set.delete(call));
        call.write(first());
      };
    return {
      FetchX509SVID: stream('FetchX509SVID', this.x509Streams, () => this.x509Response()),
      FetchJWTBundles: stream('FetchJWTBundles', this.jwtBundleStreams, () => this.jwtBundles()),
      FetchX509Bundles: stream('FetchX509Bundles', new Set(), () => ({
        crl: [],
        bundles: { [`spiffe://${this.domain.trustDomain}`]: Buffer.concat(this.domain.bundle()) },
      })),
      FetchJWTSVID: async (
        call: grpc.ServerUnaryCall<{ audience: string[]; spiffe_id: string }, unknown>,
        callback: grpc.sendUnaryData<unknown>,
      ) => {
        if (!this.authorized('FetchJWTSVID', call.metadata)) return callback(refusal);
        const { audience, spiffe_id } = call.request;
        if (!audience || audience.length === 0)
          return callback({ code: grpc.status.INVALID_ARGUMENT, details: 'audience must be specified' });
        if (spiffe_id && spiffe_id !== this.spiffeId)
          return callback({ code: grpc.status.PERMISSION_DENIED, details: 'no identity issued' });
        const now = Math.floor(Date.now() / 1000);
        const svid = await this.domain.signJwt({ sub: this.spiffeId, aud: audience, iat: now, exp: now + this.jwtTtl });
        callback(null, { svids: [{ spiffe_id: this.spiffeId, svid, hint: 'internal' }] });
      },
      ValidateJWTSVID: async (
        call: grpc.ServerUnaryCall<{ audience: string; svid: string }, unknown>,
        callback: grpc.sendUnaryData<unknown>,
      ) => {
        if (!this.authorized('ValidateJWTSVID', call.metadata)) return callback(refusal);
        const { audience, svid } = call.request;
        if (!audience) return callback({ code: grpc.status.INVALID_ARGUMENT, details: 'audience must be specified' });
        try {
          const { payload } = await jwtVerify(svid, createLocalJWKSet(this.domain.jwks()), { audience });
          callback(null, { spiffe_id: payload.sub, claims: jsonToStruct(payload as Record<string, unknown>) });
        } catch (error) {
          callback({
            code: grpc.status.INVALID_ARGUMENT,
            details: `cannot validate JWT-SVID: ${(error as Error).message}`,
          });
        }
      },
    };
  }
}
