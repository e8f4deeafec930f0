import type { FastifyInstance } from 'fastify';

/** `GET path`: a CA certificate, as PEM, for whoever wants to trust what it signs (a wallet, a verifier). */
export function pemRoute(app: FastifyInstance, path: string, summary: string, tags: string[], pem: string): void {
  app.get(path, { schema: { summary, tags } }, async (_request, reply) =>
    reply.type('application/x-pem-file').send(pem),
  );
}
