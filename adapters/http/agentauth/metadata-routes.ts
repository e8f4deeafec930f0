import type { FastifyInstance } from 'fastify';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { agentAuthBlock, agentAuthMetadata } from '../../../services/agentauth/metadata.ts';
import type { MainContext } from '../main/context.ts';
import { sendDocument } from '../main/documents.ts';

const AUTH_GUIDE = fileURLToPath(new URL('../../../content/guides/auth.md', import.meta.url));

/** Authorization-server metadata (RFC 8414) for agentauth and the origin, and the agent auth guide. */
export async function agentAuthMetadataRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const base = ctx.config.baseUrl;
  const settings = ctx.agentAuth.settings;
  const agentauth = JSON.stringify(agentAuthMetadata(settings, base));
  // Built on first request, after every server has contributed its members.
  let origin: string | undefined;
  const originDocument = () =>
    (origin ??= JSON.stringify({ issuer: base, ...ctx.originMetadata, agent_auth: agentAuthBlock(settings, base) }));

  app.get(
    '/.well-known/oauth-authorization-server/agentauth',
    { schema: { summary: 'Metadata of the agentic registration server (RFC 8414)', tags: ['discovery'] } },
    (request, reply) => sendDocument(request, reply, agentauth, 'application/json'),
  );
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    app.get(
      path,
      { schema: { summary: 'Metadata of the origin issuer, with the agent_auth block', tags: ['discovery'] } },
      (request, reply) => sendDocument(request, reply, originDocument(), 'application/json'),
    );
  }

  const guide = (await readFile(AUTH_GUIDE, 'utf8'))
    .replaceAll('{{base_url}}', base)
    .replaceAll('{{claim_grant_type}}', settings.claimGrantType)
    .replaceAll('{{revocation_event_uri}}', settings.revocationEventUri);
  app.get('/auth.md', { schema: { summary: 'Agent auth guide (markdown)', tags: ['discovery'] } }, (request, reply) =>
    sendDocument(request, reply, guide, 'text/markdown; charset=utf-8'),
  );
}
