/**
 * The ports of the workload identity service. Adapters implement them: the Workload API client
 * (gRPC over the agent's unix socket, adapters/workload-api/client.ts) and the mutual-TLS dialer
 * (adapters/workload-api/mtls-dialer.ts). Bytes are DER as the Workload API carries them.
 */

/** One X.509-SVID as the agent hands it over. */
export interface X509Svid {
  spiffeId: string;
  /** Leaf first, then intermediates. */
  chain: Uint8Array[];
  /** Unencrypted PKCS#8 DER. Stays in memory: never logged, never returned by an endpoint. */
  privateKey: Uint8Array;
  /** X.509 authorities of the SVID's trust domain. */
  bundle: Uint8Array[];
  hint?: string;
}

/** One message of the FetchX509SVID stream. */
export interface X509SvidUpdate {
  /** The first one is the default identity. */
  svids: X509Svid[];
  /** X.509 authorities of federated trust domains, by trust domain SPIFFE ID (`spiffe://td`). */
  federatedBundles: Record<string, Uint8Array[]>;
  crlCount: number;
}

export interface JwtSvid {
  spiffeId: string;
  token: string;
  hint?: string;
}

/** JWK sets by trust domain SPIFFE ID, as parsed JSON. */
export type JwtBundles = Record<string, { keys?: unknown[] } & Record<string, unknown>>;

/** An open conversation with the agent: two streams kept open, unary calls on demand. */
export interface WorkloadApiSession {
  /** The latest message of the X.509-SVID stream (the first arrived before `connect` resolved). */
  x509(): X509SvidUpdate;
  /** Called with every later message of the X.509-SVID stream (rotations, new bundles). Returns an unsubscribe. */
  onX509(listener: (update: X509SvidUpdate) => void): () => void;
  /** The latest JWT bundles from the FetchJWTBundles stream (empty until the agent sends them). */
  jwtBundles(): JwtBundles;
  fetchJwtSvid(audience: string[], spiffeId?: string): Promise<JwtSvid[]>;
  validateJwtSvid(audience: string, token: string): Promise<{ spiffeId: string; claims: Record<string, unknown> }>;
  /** Settles with the reason once the X.509 stream has ended or failed: the agent is gone. */
  readonly ended: Promise<string>;
  close(): void;
}

/** Something that can reach the Workload API agent. */
export interface WorkloadApiConnector {
  /** Opens a session; resolves once the first X.509-SVID message arrived, rejects if none comes. */
  connect(socketPath: string): Promise<WorkloadApiSession>;
}

/** Refusal by the agent of a unary call (e.g. ValidateJWTSVID on a bad token). */
export class WorkloadApiCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'WorkloadApiCallError';
  }
}

export interface MtlsDialRequest {
  host: string;
  port: number;
  /** Our SVID chain, leaf first, and its PKCS#8 key. */
  chain: Uint8Array[];
  privateKey: Uint8Array;
  /** Authorities the peer's chain must lead to. */
  trustAnchors: Uint8Array[];
  timeoutMs: number;
}

export interface MtlsDialResult {
  connected: boolean;
  /** Time to the completed handshake. */
  durationMs: number;
  error?: string;
  protocol?: string;
  cipher?: string;
  alpn?: string;
  /** Did the TLS stack itself chain the peer to `trustAnchors`? */
  tlsAuthorized?: boolean;
  tlsAuthorizationError?: string;
  /** The peer's certificates as sent, leaf first. */
  peerChain: Uint8Array[];
}

/** Dials a peer with mutual TLS and reports what the handshake showed. */
export interface MtlsDialer {
  dial(request: MtlsDialRequest): Promise<MtlsDialResult>;
}
