import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../../../services/errors.ts';
import type { Block } from '../../../services/pages/document.ts';
import { RESOURCE_TYPES } from '../../../services/scim/resource-types.ts';
import { tenantOf } from '../../../services/scim/tenants.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import type { MainContext } from '../main/context.ts';
import { h, p } from '../pages/blocks.ts';
import { sendPage } from '../pages/respond.ts';
import { stringMembers } from '../response-schemas.ts';

/**
 * `/scim`: the SCIM tenants, and `/scim/tenants/{tenant}`: one tenant's resources with their streams
 * (pages with markdown twins). A demo client's tenant is open (its credentials are published demo data);
 * any other tenant opens with an access token of its client (scope scim), posted by the form.
 */
export function scimPages(app: FastifyInstance, ctx: MainContext): void {
  const base = ctx.config.baseUrl;
  const demoTenants = ctx.oauth.clients
    .filter((c) => c.grant_types.includes('client_credentials'))
    .map((c) => c.client_id);
  const tokenForm: Block = {
    kind: 'html',
    html: `<form method="post" action="/scim/tenants"><label for="scim-token">An access token of ${escapeHtml(base)}/oauth2 with scope scim (client_credentials)</label><input type="password" id="scim-token" name="token" autocomplete="off"><button type="submit">Open its tenant</button></form>`,
    markdown: [
      p(
        'Another tenant: ',
        { code: 'POST /scim/tenants' },
        ' with the form field ',
        { code: 'token' },
        ' (scope scim).',
      ),
    ],
  };

  /** One tenant: each resource type's resources, their state and version, and the stream each lives in. */
  const tenantBlocks = async (tenant: string): Promise<Block[]> => {
    await ctx.scim.service.ready(tenant);
    const blocks: Block[] = [
      h(1, `SCIM tenant ${tenant}`),
      p(
        'The resources of this tenant at ',
        { code: `${base}/scim/v2` },
        '. Each is an event stream: export it at ',
        { code: '/api/streams/<stream>/export' },
        " with the tenant's token, replay it with ",
        { code: 'npm run replay' },
        '.',
      ),
    ];
    for (const type of RESOURCE_TYPES) {
      const page = await ctx.scim.service.list(tenant, type, { sortOrder: 'ascending', count: 200 });
      blocks.push(h(2, `${type.name}s (${page.totalResults})`));
      if (page.items.length === 0) {
        blocks.push(p('None.'));
        continue;
      }
      blocks.push({
        kind: 'table',
        head: ['Name', 'id', 'Active', 'Version', 'Stream'],
        rows: page.items.map((r) => {
          const text = (v: unknown) => (typeof v === 'string' ? v : '');
          const id = text(r.id);
          return [
            [text(r.userName) || text(r.displayName) || text(r.name)],
            [{ code: id }],
            [r.active === false ? 'no' : 'yes'],
            [{ code: text((r.meta as { version?: unknown } | undefined)?.version) }],
            [{ code: `${type.streamPrefix}:${tenant}:${id}` }],
          ];
        }),
      });
    }
    return blocks;
  };

  const sendTenant = async (request: FastifyRequest, reply: FastifyReply, tenant: string) =>
    sendPage(request, reply, {
      title: `SCIM tenant ${tenant}`,
      noindex: true,
      blocks: [...(await tenantBlocks(tenant)), tokenForm],
    });

  app.get('/scim', { schema: { summary: 'The SCIM tenants (page)', tags: ['pages'] } }, async (request, reply) =>
    sendPage(request, reply, {
      title: 'SCIM tenants',
      blocks: [
        h(1, 'SCIM tenants'),
        p(
          'The SCIM 2.0 service provider at ',
          { code: `${base}/scim/v2` },
          ' keeps one tenant per OAuth client. Its resources are records of a provisioning target, not sign-in accounts. See ',
          { link: 'the protocol', href: '/protocol/scim' },
          ' and ',
          { code: 'docs/scim.md' },
          ' in the repository.',
        ),
        h(2, "The demo clients' tenants"),
        {
          kind: 'list',
          items: demoTenants.map((t) => [{ link: t, href: `/scim/tenants/${encodeURIComponent(tenantOf(t))}` }]),
        },
        tokenForm,
      ],
    }),
  );

  app.get<{ Params: { tenant: string } }>(
    '/scim/tenants/:tenant',
    { schema: { summary: "A demo client's SCIM tenant: its resources and their streams (page)", tags: ['pages'] } },
    async (request, reply) => {
      const tenant = request.params.tenant;
      if (!demoTenants.some((t) => tenantOf(t) === tenant))
        return sendPage(
          request,
          reply,
          {
            title: 'SCIM tenant',
            noindex: true,
            blocks: [h(1, 'SCIM tenant'), p('This tenant opens with its access token.'), tokenForm],
          },
          404,
        );
      return sendTenant(request, reply, tenant);
    },
  );

  app.post(
    '/scim/tenants',
    {
      schema: {
        summary: 'The SCIM tenant of the posted access token (page)',
        tags: ['pages'],
        body: stringMembers({ token: 8_192 }),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const token = ((request.body ?? {}) as { token?: string }).token?.trim() ?? '';
      try {
        const tenant = await ctx.scim.tenant({
          authorization: `Bearer ${token}`,
          method: 'GET',
          url: `${base}/scim/v2/Users`,
        });
        return await sendTenant(request, reply, tenant);
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        const blocks = [
          h(1, 'SCIM tenant'),
          { kind: 'notice', tone: 'error', inlines: [error.description] } as Block,
          tokenForm,
        ];
        return sendPage(request, reply, { title: 'SCIM tenant', noindex: true, blocks }, error.status);
      }
    },
  );
}
