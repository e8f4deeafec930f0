import type { FastifyInstance } from 'fastify';
import type { Block, Inline, PageDocument } from '../../../services/pages/document.ts';
import { contentPlaceholders, markdownBlocks, markdownInlines } from '../../../services/pages/markdown-content.ts';
import { escapeHtml, renderHtmlBody } from '../../../services/pages/render-html.ts';
import { referenceInlines } from '../../../services/lookingglass/references.ts';
import { signJwt } from '../../../services/crypto/jws.ts';
import { OAuthError, oauthError } from '../../../services/errors.ts';
import type { MainContext } from '../main/context.ts';
import { sendPage } from './respond.ts';
import { sequenceDiagramSvg } from './sequence-diagram.ts';
import { runPage } from './run-timeline.ts';
import { pickRunOptions, runOptionsOf, type RunOption } from '../../../services/flows/run-options.ts';

const p = (...inlines: Inline[]): Block => ({ kind: 'paragraph', inlines });
const h = (level: 1 | 2 | 3, text: string): Block => ({ kind: 'heading', level, text });

export function notFoundPage(path: string): PageDocument {
  return {
    title: 'Not found',
    noindex: true,
    blocks: [
      h(1, 'Not found'),
      p('Nothing lives at ', { code: path }, '.'),
      p({ link: 'Back to the protocol catalog', href: '/' }),
    ],
  };
}

const ERROR_TITLES: Record<number, string> = {
  400: 'Bad request',
  404: 'Not found',
  413: 'Request too large',
  414: 'Address too long',
  429: 'Too many requests',
  503: 'Unavailable',
};

/** The page an error shows on a page path: what happened and, for a rate limit, when to retry. */
export function errorPage(error: { error: string; description: string; status: number }): PageDocument {
  const title = ERROR_TITLES[error.status] ?? (error.status >= 500 ? 'Something went wrong' : 'Request refused');
  return {
    title,
    noindex: true,
    blocks: [
      h(1, title),
      { kind: 'notice', tone: 'error', inlines: [error.description] },
      p('Error ', { code: error.error }, `, HTTP ${error.status}. `, {
        link: 'Back to the protocol catalog',
        href: '/',
      }),
    ],
  };
}

/** Server-rendered pages with markdown twins: home, protocols, flows, the looking glass, runs. */
export async function pageRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const { catalog, flowRuns } = ctx;
  const placeholders = contentPlaceholders(ctx.config);
  const pageSchema = (summary: string, params?: Record<string, unknown>) => ({
    summary,
    tags: ['pages'],
    ...(params ? { params } : {}),
  });

  app.get(
    '/',
    { schema: pageSchema('Home page (HTML, or markdown with Accept: text/markdown)') },
    async (request, reply) =>
      sendPage(request, reply, {
        title: 'Identity protocols you can run',
        description:
          'A live sandbox for OAuth 2.0, OpenID Connect, agent registration and more: run real flows, inspect every token.',
        blocks: [
          h(1, 'Identity protocols you can run'),
          p(
            'Portico runs real authentication and identity protocols on demo data. Start a flow, watch every HTTP exchange, and decode every token. Demo clients and users are published, so every token minted here is public and valid nowhere else.',
          ),
          {
            kind: 'notice',
            tone: 'info',
            inlines: [
              'Agents: start with ',
              { link: '/llms.txt', href: '/llms.txt' },
              ', ',
              { link: 'the agent auth guide', href: '/auth.md' },
              ' and ',
              { link: 'the agent skills', href: '/.well-known/agent-skills/index.json' },
              '.',
            ],
          },
          {
            kind: 'html',
            html: '<form method="get" action="/search" role="search" data-palette><label for="q">Search protocols, flows and concepts</label><input id="q" name="q" type="search" autocomplete="off" placeholder="pkce, device code, mdl…"> <button type="submit">Search</button></form><ul id="palette-results" aria-live="polite"></ul>',
            markdown: [p('Search: ', { code: 'POST /api/palette/query {"q": "..."}' })],
          },
          h(2, 'Protocols'),
          {
            kind: 'table',
            head: ['Protocol', 'What it does', 'Flows'],
            rows: catalog
              .protocols()
              .map((pr) => [
                [{ link: pr.name, href: `/protocol/${pr.id}` }],
                [pr.description],
                [String(catalog.flows(pr.id).length)],
              ]),
          },
          h(2, 'Tools'),
          {
            kind: 'list',
            items: [
              [{ link: 'Looking glass', href: '/looking-glass' }, ': decode and explain a JWT or credential'],
              [
                { link: 'API reference', href: '/docs/api' },
                ' and ',
                { link: 'OpenAPI contract', href: '/openapi.json' },
              ],
              [{ link: 'MCP server card', href: '/mcp/server-card' }, ': read-only tools at ', { code: '/mcp' }],
            ],
          },
        ],
      }),
  );

  app.get(
    '/protocol/:id',
    {
      schema: pageSchema('A protocol and its flows (page)', {
        type: 'object',
        properties: { id: { type: 'string', maxLength: 100 } },
      }),
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const pr = catalog.protocol(id);
      if (!pr) return sendPage(request, reply, notFoundPage(request.url), 404);
      return sendPage(request, reply, {
        title: pr.name,
        description: pr.description,
        blocks: [
          h(1, pr.name),
          { kind: 'paragraph', inlines: markdownInlines(pr.description, placeholders) },
          p('Version: ', { code: pr.version }),
          ...(pr.body ? markdownBlocks(pr.body, placeholders) : []),
          h(2, 'Flows'),
          {
            kind: 'table',
            head: ['Flow', 'Category', 'Runnable'],
            rows: catalog
              .flows(pr.id)
              .map((f) => [
                [{ link: f.name, href: `/protocol/${pr.id}/flow/${f.id}` }],
                [f.category],
                [flowRuns.executable(pr.id, f.id) ? 'yes' : 'not in this build'],
              ]),
          },
          h(2, 'Specifications'),
          { kind: 'list', items: pr.specs.map((s) => [{ link: s.title, href: s.url }]) },
        ],
      });
    },
  );

  app.get(
    '/protocol/:id/flow/:flow',
    {
      schema: pageSchema('A flow: steps, sequence diagram, run instructions (page)', {
        type: 'object',
        properties: { id: { type: 'string', maxLength: 100 }, flow: { type: 'string', maxLength: 100 } },
      }),
    },
    async (request, reply) => {
      const { id, flow } = request.params as { id: string; flow: string };
      const f = catalog.flow(id, flow);
      if (!f) return sendPage(request, reply, notFoundPage(request.url), 404);
      const runnable = flowRuns.executable(id, flow);
      const stepList: Block = {
        kind: 'list',
        ordered: true,
        items: f.steps.map((s) => [
          { strong: s.name },
          ` (${s.from} → ${s.to}): `,
          ...markdownInlines(s.description, placeholders),
          ...(s.spec_ref ? ([' — ', { em: s.spec_ref }] as Inline[]) : []),
        ]),
      };
      return sendPage(request, reply, {
        title: f.name,
        description: f.description,
        blocks: [
          h(1, f.name),
          { kind: 'paragraph', inlines: markdownInlines(f.description, placeholders) },
          p('Protocol: ', { link: catalog.protocol(id)!.name, href: `/protocol/${id}` }),
          h(2, 'Sequence'),
          // The diagram draws the steps listed under Steps: its markdown twin points there instead of repeating them.
          {
            kind: 'figure',
            html: sequenceDiagramSvg(f.steps, f.name),
            caption: `${f.steps.length} steps`,
            markdown: [p(`A sequence diagram of the ${f.steps.length} steps listed under Steps.`)],
          },
          h(2, 'Steps'),
          stepList,
          ...(f.body ? markdownBlocks(f.body, placeholders) : []),
          h(2, 'Run it'),
          runnable
            ? {
                kind: 'html',
                html: `<form method="post" action="/protocol/${escapeHtml(id)}/flow/${escapeHtml(flow)}/run" data-run-flow="/api/protocols/${escapeHtml(id)}/demo/${escapeHtml(flow)}">${runOptionControls(runOptionsOf(id, flow))}<button type="submit">Run this flow</button></form><p>Or over the API: <code>POST /api/protocols/${escapeHtml(id)}/demo/${escapeHtml(flow)}</code></p><section id="run-output" aria-live="polite"></section>`,
                markdown: [
                  p(
                    'Run it over the API: ',
                    { code: `POST /api/protocols/${id}/demo/${flow}` },
                    runOptionsOf(id, flow).length ? ' with a JSON body of these options:' : '',
                  ),
                  ...runOptionList(runOptionsOf(id, flow)),
                ],
              }
            : p('This flow is described but cannot be run in this build.'),
        ],
      });
    },
  );

  // Without JavaScript the Run button posts here and lands on the run's page.
  app.post(
    '/protocol/:id/flow/:flow/run',
    {
      schema: {
        ...pageSchema('Run a flow from its page with the chosen options (form post, redirects to the run)', {
          type: 'object',
          properties: { id: { type: 'string', maxLength: 100 }, flow: { type: 'string', maxLength: 100 } },
        }),
        body: { type: 'object', nullable: true, additionalProperties: { type: 'string', maxLength: 300 } },
        response: { 303: { description: "See Other: the run's page, /runs/{run_id} (Location)", type: 'null' } },
      },
    },
    async (request, reply) => {
      const { id, flow } = request.params as { id: string; flow: string };
      try {
        const run = await flowRuns.start(id, flow, pickRunOptions(id, flow, request.body));
        return reply.redirect(`/runs/${run.run_id}`, 303);
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        return sendPage(
          request,
          reply,
          {
            title: 'Cannot run',
            noindex: true,
            blocks: [h(1, 'This flow cannot run'), { kind: 'notice', tone: 'error', inlines: [error.description] }],
          },
          error.status,
        );
      }
    },
  );

  app.get(
    '/runs/:id',
    {
      schema: pageSchema('A run: every exchange and decoded token (page)', {
        type: 'object',
        properties: { id: { type: 'string', maxLength: 100 } },
      }),
    },
    async (request, reply) => {
      const view = await flowRuns.view((request.params as { id: string }).id);
      if (!view) return sendPage(request, reply, notFoundPage(request.url), 404);
      return sendPage(request, reply, runPage(view));
    },
  );

  app.get(
    '/search',
    {
      schema: {
        ...pageSchema('Search results (page; works without JavaScript)'),
        querystring: { type: 'object', properties: { q: { type: 'string', maxLength: 200 } } },
      },
    },
    async (request, reply) => {
      const q = (request.query as { q?: string }).q?.trim() ?? '';
      const found = q && ctx.palette ? ctx.palette.query(q, { limit: 20 }).results : [];
      return sendPage(request, reply, {
        title: q ? `Search: ${q}` : 'Search',
        noindex: true,
        blocks: [
          h(1, 'Search'),
          {
            kind: 'html',
            html: `<form method="get" action="/search" role="search" data-palette><label for="q">Search</label><input id="q" name="q" type="search" value="${escapeHtml(q)}"> <button type="submit">Search</button></form><ul id="palette-results" aria-live="polite"></ul>`,
            markdown: [p('Query: ', { code: q })],
          },
          found.length
            ? { kind: 'list', items: found.map((r) => [{ link: r.name, href: r.href }, ` — ${r.type}: ${r.summary}`]) }
            : p(q ? 'Nothing matched.' : 'Type a word: a protocol, a flow, a concept or a requirement id.'),
        ],
      });
    },
  );

  /** The flow's options as documented form controls (each a select, or a text field). */
  const runOptionControls = (options: readonly RunOption[]) =>
    options
      .map((o) => {
        const field = o.values
          ? `<select id="opt-${o.name}" name="${o.name}" aria-describedby="opt-${o.name}-hint">${o.values.map((v) => `<option value="${escapeHtml(v)}"${v === o.default ? ' selected' : ''}>${escapeHtml(v)}</option>`).join('')}</select>`
          : `<input type="text" id="opt-${o.name}" name="${o.name}" value="${escapeHtml(o.default)}" maxlength="${o.maxLength ?? 200}" aria-describedby="opt-${o.name}-hint">`;
        return `<label for="opt-${o.name}">${escapeHtml(o.label)} <code>${o.name}</code></label>${field}<p class="hint" id="opt-${o.name}-hint">${escapeHtml(o.description)}</p>`;
      })
      .join('');
  const runOptionList = (options: readonly RunOption[]): Block[] =>
    options.length
      ? [
          {
            kind: 'list',
            items: options.map(
              (o) =>
                [
                  { code: o.name },
                  `: ${o.description} `,
                  ...(o.values
                    ? ['One of ', ...o.values.flatMap((v, i) => [...(i > 0 ? [', '] : []), { code: v }]), '; ']
                    : []),
                  'default ',
                  { code: o.default },
                  '.',
                ] as Inline[],
            ),
          },
        ]
      : [];

  /** Two groups of blocks side by side on a wide screen (one after the other in the markdown twin). */
  const besideEachOther = (left: Block[], right: Block[]): Block[] => [
    {
      kind: 'html',
      html: `<div class="beside"><div>${renderHtmlBody({ title: '', blocks: left })}</div><div>${renderHtmlBody({ title: '', blocks: right })}</div></div>`,
      markdown: [...left, ...right],
    },
  ];

  /** The compact token split into its parts, each in its own colour (the twin lists them). */
  const segments = (token: string): Block => {
    const [header = '', payload = '', signature = ''] = token.split('.');
    return {
      kind: 'html',
      html: `<p class="jwt" aria-label="The token, part by part"><span class="jwt-h" title="header">${escapeHtml(header)}</span>.<span class="jwt-p" title="payload">${escapeHtml(payload)}</span>.<span class="jwt-s" title="signature">${escapeHtml(signature)}</span></p><p class="jwt-legend"><span class="jwt-h">header</span> · <span class="jwt-p">payload</span> · <span class="jwt-s">signature</span></p>`,
      markdown: [{ kind: 'code', text: `header:    ${header}\npayload:   ${payload}\nsignature: ${signature}` }],
    };
  };

  /** The looking glass page, with the decoded token when one was sent. */
  const lookingGlassPage = async (token: string | undefined, jwksText?: string): Promise<Block[]> => {
    const blocks: Block[] = [
      h(1, 'Looking glass'),
      p(
        "Paste a JWT to decode it, check its signature against this origin's issuers (or a JWKS you paste), and read every claim explained, each linked to where it is defined. For credentials use ",
        { code: 'POST /api/lookingglass/decode/credential' },
        '.',
      ),
      // POST keeps tokens out of URLs, history and logs; the form works without JavaScript.
      {
        kind: 'html',
        html: `<form method="post" action="/looking-glass"><label for="token">Token</label><textarea id="token" name="token" spellcheck="false" autocomplete="off">${escapeHtml(token ?? '')}</textarea><label for="jwks">JWKS to verify with (optional; else this origin's issuers)</label><textarea id="jwks" name="jwks" spellcheck="false" autocomplete="off" class="short" placeholder='{"keys": [...]}'>${escapeHtml(jwksText ?? '')}</textarea><button type="submit">Decode</button></form>`,
        markdown: [
          p(
            'Decode a token: ',
            { code: 'POST /looking-glass' },
            ' with the form fields ',
            { code: 'token' },
            ' and optionally ',
            { code: 'jwks' },
            '; ',
            { code: 'GET /looking-glass?token=<jwt>' },
            ' decodes too, for links (the token then travels in the URL: prefer the POST); or, as JSON, ',
            { code: 'POST /api/lookingglass/decode' },
          ),
        ],
      },
    ];
    if (!token) return blocks;
    try {
      let jwks: { keys: [] } | undefined;
      if (jwksText?.trim()) {
        try {
          jwks = JSON.parse(jwksText) as { keys: [] };
        } catch {
          throw oauthError('invalid_request', 'The JWKS is not JSON');
        }
        if (!jwks || !Array.isArray(jwks.keys)) throw oauthError('invalid_request', 'The JWKS has no keys array');
      }
      const d = await ctx.lookingGlass.decodeJwt(token, jwks);
      blocks.push(
        segments(token),
        h(2, 'Signature'),
        { kind: 'notice', tone: d.signature.verified ? 'ok' : 'warning', inlines: [d.signature.detail] },
        ...(d.warnings.length ? [h(2, 'Warnings'), { kind: 'list', items: d.warnings.map((w) => [w]) } as Block] : []),
        ...besideEachOther(
          [
            h(2, 'Claims'),
            {
              kind: 'table',
              head: ['Claim', 'Value', 'Meaning', 'Defined in'],
              rows: d.claims.map((c) => [
                [{ code: c.name }],
                [
                  typeof c.value === 'string' ? c.value : JSON.stringify(c.value),
                  ...(c.relative ? [` (${c.date}, ${c.relative})`] : []),
                ],
                [c.meaning],
                referenceInlines(c.reference),
              ]),
            },
          ],
          [h(2, 'Payload'), { kind: 'code', lang: 'json', text: JSON.stringify(d.payload, null, 2) }],
        ),
        h(2, 'Header'),
        { kind: 'code', lang: 'json', text: JSON.stringify(d.header, null, 2) },
      );
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      blocks.push({ kind: 'notice', tone: 'error', inlines: [error.description] });
    }
    return blocks;
  };

  /** The `iss` of a JWT or SD-JWT, when it reads as one. */
  const jwtIssuer = (text: string): unknown => {
    try {
      return (
        JSON.parse(Buffer.from(text.split('~')[0].split('.')[1] ?? '', 'base64url').toString('utf8')) as {
          iss?: unknown;
        }
      ).iss;
    } catch {
      return undefined;
    }
  };

  /** A verdict as a notice: ok when it holds, a warning when it does not. */
  const verdict = (v: { verified?: boolean; detail: string } | undefined, what: string): Block[] =>
    v ? [{ kind: 'notice', tone: v.verified ? 'ok' : 'warning', inlines: [`${what}: ${v.detail}`] }] : [];
  const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

  /** The credential decoder in the page: disclosures (SD-JWT) or elements (mdoc) with their digest verdicts. */
  const credentialBlocks = async (text: string, jwksText?: string): Promise<Block[]> => {
    const blocks: Block[] = [h(2, 'Credential')];
    try {
      const input = /^\s*[{[]/.test(text) ? (JSON.parse(text) as unknown) : text.trim();
      // Without a pasted JWKS, a credential of this origin's issuer is checked with that issuer's keys.
      const jwks = jwksText?.trim()
        ? (JSON.parse(jwksText) as { keys: [] })
        : typeof input === 'string' && jwtIssuer(input) === `${ctx.config.baseUrl}/oid4vci`
          ? (ctx.keys.jwks('oid4vci') as { keys: [] })
          : undefined;
      const d = (await ctx.lookingGlass.decodeCredential(input, jwks)) as Record<string, any>;
      blocks.push(
        p(
          'Format: ',
          { code: String(d.format) },
          ...(d.doctype ? ([' — doctype ', { code: String(d.doctype) }] as Inline[]) : []),
        ),
      );
      blocks.push(...verdict(d.issuer_signature, 'Issuer signature'), ...verdict(d.holder_binding, 'Holder binding'));
      if (d.validity?.state) blocks.push(p('Validity: ', { strong: String(d.validity.state) }));
      if (Array.isArray(d.warnings) && d.warnings.length)
        blocks.push(h(3, 'Warnings'), { kind: 'list', items: d.warnings.map((w: string) => [w]) });
      if (Array.isArray(d.disclosures)) {
        blocks.push(h(3, 'Disclosures'), {
          kind: 'table',
          head: ['Claim', 'Value', 'Digest', 'Referenced by the signed payload'],
          rows: d.disclosures.map((x: any) => [
            [{ code: String(x.name ?? '(array element)') }],
            [show(x.value)],
            [{ code: String(x.digest) }],
            [x.referenced ? 'yes' : 'NO: not covered by the issuer signature'],
          ]),
        });
      }
      if (Array.isArray(d.elements)) {
        blocks.push(h(3, 'Elements'), {
          kind: 'table',
          head: ['Namespace', 'Element', 'Value', 'Digest'],
          rows: d.elements.map((x: any) => [
            [{ code: String(x.namespace) }],
            [{ code: String(x.identifier) }],
            [show(x.value)],
            [x.digest_matches ? `matches (digest ${x.digest_id})` : `DOES NOT MATCH (digest ${x.digest_id})`],
          ]),
        });
      }
      blocks.push(h(3, 'Decoded'), { kind: 'code', lang: 'json', text: JSON.stringify(d, null, 2) });
    } catch (error) {
      if (error instanceof SyntaxError)
        blocks.push({ kind: 'notice', tone: 'error', inlines: ['The credential or the JWKS is not valid JSON'] });
      else if (error instanceof OAuthError)
        blocks.push({ kind: 'notice', tone: 'error', inlines: [error.description] });
      else throw error;
    }
    return blocks;
  };

  /**
   * Sample tokens of this origin's issuers, signed with their real keys so the signature verifies, but
   * already expired and addressed to no real audience: they teach, they open nothing.
   */
  const sampleTokens = (): Array<{ label: string; token: string }> => {
    const now = Math.floor(ctx.clock.now() / 1000);
    const base = ctx.config.baseUrl;
    const common = { iat: now - 7200, nbf: now - 7200, exp: now - 3600, aud: 'https://sample.invalid' };
    return [
      {
        label: 'an OAuth 2.0 access token (RFC 9068)',
        token: signJwt(
          ctx.keys.signing('oauth2', 'ES256'),
          { typ: 'at+jwt' },
          {
            ...common,
            iss: `${base}/oauth2`,
            sub: 'alice',
            client_id: 'demo-app',
            scope: 'api:read',
            jti: 'sample-access-token',
          },
        ),
      },
      {
        label: 'an OpenID Connect ID token',
        token: signJwt(
          ctx.keys.signing('oidc', 'RS256'),
          { typ: 'JWT' },
          {
            ...common,
            iss: base,
            sub: 'alice',
            nonce: 'sample-nonce',
            auth_time: now - 7200,
            name: 'Alice Anderson',
            email: 'alice@example.com',
          },
        ),
      },
      {
        label: 'an agent identity assertion',
        token: signJwt(
          ctx.keys.signing('agentauth', 'ES256'),
          { typ: 'JWT' },
          {
            ...common,
            iss: `${base}/agentauth`,
            sub: 'agent-sample',
            jti: 'sample-assertion',
            claimed: false,
            assertion_version: 1,
          },
        ),
      },
    ];
  };
  const samplesBlock = (): Block => ({
    kind: 'html',
    html: `<h2>Samples</h2><p>Tokens of this origin's issuers, signed with their keys, expired on purpose and addressed to no real audience: they show how a token of ours reads, and open nothing.</p><ul>${sampleTokens()
      .map(
        (t) =>
          `<li><form method="post" action="/looking-glass" class="inline"><input type="hidden" name="token" value="${escapeHtml(t.token)}"><button type="submit" class="secondary">Decode ${escapeHtml(t.label)}</button></form></li>`,
      )
      .join('')}</ul>`,
    markdown: [
      h(2, 'Samples'),
      p(
        "Tokens of this origin's issuers, signed with their keys, expired on purpose and addressed to no real audience: they show how a token of ours reads, and open nothing.",
      ),
      { kind: 'list', items: sampleTokens().map((t) => [`${t.label}: `, { code: t.token }]) },
    ],
  });

  const credentialForm: Block = {
    kind: 'html',
    html: `<h2 id="credential-form">Decode a credential</h2><form method="post" action="/looking-glass#credential-form"><label for="credential">SD-JWT VC, mdoc (base64url), JWT VC, W3C JSON or a vp_token</label><textarea id="credential" name="credential" spellcheck="false" autocomplete="off"></textarea><button type="submit">Decode the credential</button></form>`,
    markdown: [
      h(2, 'Decode a credential'),
      p('Credentials: ', { code: 'POST /looking-glass' }, ' with the form field ', { code: 'credential' }, ', or ', {
        code: 'POST /api/lookingglass/decode/credential',
      }),
    ],
  };

  app.get(
    '/looking-glass',
    {
      schema: {
        ...pageSchema(
          'Looking glass: decode a JWT (page; works without JavaScript). A `token` query still decodes, for links; the form posts.',
        ),
        querystring: { type: 'object', properties: { token: { type: 'string', maxLength: 32_768 } } },
      },
    },
    async (request, reply) => {
      const token = (request.query as { token?: string }).token?.trim();
      if (token) reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      return sendPage(request, reply, {
        title: 'Looking glass',
        noindex: Boolean(token),
        blocks: [...(await lookingGlassPage(token)), ...(token ? [] : [samplesBlock()]), credentialForm],
      });
    },
  );

  app.post(
    '/looking-glass',
    {
      bodyLimit: 256 * 1024,
      schema: {
        ...pageSchema(
          'Looking glass: decode the JWT in the form field token (verified with the optional jwks field) or the credential in the field credential (page)',
        ),
        body: {
          type: 'object',
          properties: {
            token: { type: 'string', maxLength: 32_768 },
            jwks: { type: 'string', maxLength: 65_536 },
            credential: { type: 'string', maxLength: 200_000 },
          },
        },
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as { token?: string; jwks?: string; credential?: string };
      reply.header('cache-control', 'no-store');
      const credential = body.credential?.trim() ? await credentialBlocks(body.credential, body.jwks) : [];
      return sendPage(request, reply, {
        title: 'Looking glass',
        noindex: true,
        blocks: [...(await lookingGlassPage(body.token?.trim(), body.jwks)), credentialForm, ...credential],
      });
    },
  );
}
