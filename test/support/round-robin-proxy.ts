import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small load balancer on loopback for multi-instance tests: each request goes to the next upstream
 * in turn, or to the one named by `x-upstream: <index>`. It sets `x-forwarded-for` from the test's
 * `x-client-ip` header (a fresh address per request otherwise, so no test shares a rate-limit window
 * by accident), streams bodies both ways (SSE included) and answers 502 when an upstream is gone.
 */
export interface RoundRobinProxy {
  url: string;
  /** Requests sent to each upstream. */
  served: number[];
  close(): Promise<void>;
}

export async function startRoundRobinProxy(upstreamPorts: readonly number[], port = 0): Promise<RoundRobinProxy> {
  const served = upstreamPorts.map(() => 0);
  let next = 0;
  let anonymous = 0;
  const pick = (req: IncomingMessage) => {
    const pinned = Number(req.headers['x-upstream']);
    if (Number.isInteger(pinned) && pinned >= 0 && pinned < upstreamPorts.length) return pinned;
    return next++ % upstreamPorts.length;
  };
  const server: Server = createServer((req, res) => {
    const index = pick(req);
    served[index] += 1;
    const n = ++anonymous;
    const client =
      typeof req.headers['x-client-ip'] === 'string'
        ? req.headers['x-client-ip']
        : `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, 'x-forwarded-for': client };
    delete headers['x-upstream'];
    delete headers['x-client-ip'];
    const upstream = request(
      { host: '127.0.0.1', port: upstreamPorts[index], method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent)
        res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"upstream_unavailable"}');
      else res.destroy();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
