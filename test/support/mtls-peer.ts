import { createPrivateKey } from 'node:crypto';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { pem, type IssuedSvid, type TestTrustDomain } from './spiffe-ca.ts';

/**
 * The peer of the mTLS demo, standing in for the SPIRE server: a node:tls server that presents its
 * own X.509-SVID (spiffe://<td>/spire/server), requires a client certificate chaining to the same
 * bundle, and records the SPIFFE ID each client presented.
 */
export class TestMtlsPeer {
  private server?: Server;
  readonly clients: string[] = [];
  svid!: IssuedSvid;
  port = 0;

  constructor(
    readonly domain: TestTrustDomain,
    readonly spiffeId = `spiffe://${domain.trustDomain}/spire/server`,
  ) {}

  async start(): Promise<string> {
    this.svid = await this.domain.issue(this.spiffeId);
    const key = createPrivateKey({ key: Buffer.from(this.svid.key), format: 'der', type: 'pkcs8' }).export({
      format: 'pem',
      type: 'pkcs8',
    }) as string;
    const server = createServer(
      {
        cert: pem(this.svid.chain),
        key,
        ca: pem(this.domain.bundle()),
        requestCert: true,
        rejectUnauthorized: true,
        ALPNProtocols: ['h2'],
      },
      (socket: TLSSocket) => {
        const peer = socket.getPeerX509Certificate();
        const uri = peer?.subjectAltName?.match(/URI:([^,\s]+)/)?.[1];
        if (uri) this.clients.push(uri);
        socket.end();
      },
    );
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as { port: number }).port;
    return `127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
