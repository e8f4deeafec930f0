import type { FastifyInstance } from 'fastify';

/** How long a closing server waits for the requests under way before it cuts every connection left. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Closes a server: requests under way may finish for a few seconds, then every connection still open is
 * cut. Node waits for a connection that never sent a request (a browser's preconnect, a silent client)
 * for ever once the server stops checking its timeouts, and would hold the shutdown with it.
 */
export async function closeWithinGrace(app: FastifyInstance, graceMs = CLOSE_GRACE_MS): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  cut.unref();
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
