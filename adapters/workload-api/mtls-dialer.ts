import { createPrivateKey } from 'node:crypto';
import { isIP } from 'node:net';
import { connect, type PeerCertificate, type TLSSocket } from 'node:tls';
import { certificatesPem } from '../../services/workload/der.ts';
import type { MtlsDialRequest, MtlsDialResult, MtlsDialer } from '../../services/workload/ports.ts';

/**
 * A mutual-TLS handshake with node:tls: our X.509-SVID chain and key as the client certificate, the
 * trust domain's authorities as the only roots. Host name verification is off because SPIFFE
 * authenticates the peer by the SPIFFE ID in its certificate, which the service checks afterwards.
 * The connection is closed right after the handshake: nothing but TLS is spoken.
 */
function peerChain(socket: TLSSocket): Uint8Array[] {
  const out: Uint8Array[] = [];
  const seen = new Set<string>();
  let cert: PeerCertificate | undefined = socket.getPeerCertificate(true);
  while (cert && cert.raw && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    out.push(new Uint8Array(cert.raw));
    const next: PeerCertificate | undefined = (cert as PeerCertificate & { issuerCertificate?: PeerCertificate })
      .issuerCertificate;
    cert = next;
  }
  return out;
}

export const tlsDialer: MtlsDialer = {
  dial(request: MtlsDialRequest): Promise<MtlsDialResult> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    return new Promise((resolve) => {
      let done = false;
      const finish = (result: Omit<MtlsDialResult, 'durationMs'>) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({ ...result, durationMs: elapsed() });
      };
      let key: string;
      try {
        key = createPrivateKey({ key: Buffer.from(request.privateKey), format: 'der', type: 'pkcs8' }).export({
          format: 'pem',
          type: 'pkcs8',
        }) as string;
      } catch (error) {
        resolve({
          connected: false,
          durationMs: 0,
          error: `the SVID private key is unusable: ${(error as Error).message}`,
          peerChain: [],
        });
        return;
      }
      const socket = connect({
        host: request.host,
        port: request.port,
        cert: certificatesPem(request.chain),
        key,
        ca: certificatesPem(request.trustAnchors),
        rejectUnauthorized: false,
        checkServerIdentity: () => undefined,
        ALPNProtocols: ['h2', 'http/1.1'],
        minVersion: 'TLSv1.2',
        ...(isIP(request.host) ? {} : { servername: request.host }),
      });
      const timer = setTimeout(() => {
        socket.destroy();
        finish({ connected: false, error: `no TLS handshake within ${request.timeoutMs} ms`, peerChain: [] });
      }, request.timeoutMs);
      socket.once('secureConnect', () => {
        const cipher = socket.getCipher();
        const result = {
          connected: true,
          protocol: socket.getProtocol() ?? undefined,
          cipher: cipher?.standardName ?? cipher?.name,
          ...(socket.alpnProtocol ? { alpn: socket.alpnProtocol } : {}),
          tlsAuthorized: socket.authorized,
          ...(socket.authorizationError ? { tlsAuthorizationError: String(socket.authorizationError) } : {}),
          peerChain: peerChain(socket),
        };
        socket.end();
        finish(result);
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        socket.destroy();
        finish({
          connected: false,
          error: error.code ? `${error.code}: ${error.message}` : error.message,
          peerChain: [],
        });
      });
    });
  },
};
