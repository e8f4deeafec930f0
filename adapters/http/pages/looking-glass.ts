import type { FastifyInstance } from 'fastify';
import { OAuthError, oauthError } from '../../../services/errors.ts';
import { referenceInlines } from '../../../services/lookingglass/references.ts';
import type { Block, Inline } from '../../../services/pages/document.ts';
import { escapeHtml, renderHtmlBody } from '../../../services/pages/render-html.ts';
import type { MainContext } from '../main/context.ts';
import { sendPage } from './respond.ts';

import { stringMembers } from '../response-schemas.ts';
import { h, p } from './blocks.ts';
import { samplesBlock } from './looking-glass-samples.ts';
import { statusListBlocks, statusListForm, statusVerdict } from './looking-glass-status.ts';
import { dcApiBlocks, dcApiForm } from './looking-glass-dc-api.ts';
import { scimBlocks, scimForm } from './looking-glass-scim.ts';
import { samlBlocks, samlForm } from './looking-glass-saml.ts';

/** The fields of the looking glass's forms, with their bounds. */
const FIELDS = {
  token: 32_768,
  jwks: 65_536,
  credential: 200_000,
  status_list: 200_000,
  idx: 10,
  dc_request: 100_000,
  dc_response: 200_000,
  dc_origin: 500,
  scim: 100_000,
  saml: 200_000,
  saml_certificate: 16_384,
};
import { looksLikeStatusList } from '../../../services/lookingglass/decode-status-list.ts';
import type { PageSchema } from './routes.ts';

/** `/looking-glass`: decode a JWT or a credential, as a page that works without JavaScript. */
export function lookingGlassRoutes(app: FastifyInstance, ctx: MainContext, pageSchema: PageSchema): void {
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
        "Paste a JWT to decode it, check its signature against this origin's issuers (or a JWKS you paste), and read every claim explained, each linked to where it is defined. Credentials and status lists have their own forms below.",
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
    // A status list pasted as a token gets the status list view, not the generic JWT one.
    if (token.split('.').length === 3 && looksLikeStatusList(token))
      return [...blocks, ...(await statusListBlocks(ctx.lookingGlass, token, ''))];
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
      const pasted = jwksText?.trim() ? (JSON.parse(jwksText) as { keys: [] }) : undefined;
      const ours = !pasted && typeof input === 'string' && jwtIssuer(input) === `${ctx.config.baseUrl}/oid4vci`;
      const d = (await ctx.lookingGlass.decodeCredential(
        input,
        pasted ?? (ours ? (ctx.issuer.keys.jwks() as { keys: [] }) : undefined),
        ours ? "this origin's issuer keys (its jwks_uri)" : undefined,
      )) as Record<string, any>;
      blocks.push(
        p(
          'Format: ',
          { code: String(d.format) },
          ...(d.doctype ? ([' — doctype ', { code: String(d.doctype) }] as Inline[]) : []),
        ),
      );
      blocks.push(...verdict(d.issuer_signature, 'Issuer signature'), ...verdict(d.holder_binding, 'Holder binding'));
      // Validity (its times) and status (its issuer's list) side by side: a revoked credential is not "valid".
      const status = statusVerdict(d.status);
      if (d.validity?.state || status)
        blocks.push(
          p(
            ...(d.validity?.state ? (['Validity: ', { strong: String(d.validity.state) }] as Inline[]) : []),
            ...(d.validity?.state && status ? ([' · '] as Inline[]) : []),
            ...(status ? (['Status: ', { strong: status.word }, ` (${status.detail})`] as Inline[]) : []),
          ),
        );
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
        blocks: [
          ...(await lookingGlassPage(token)),
          ...(token ? [] : [samplesBlock(ctx)]),
          credentialForm,
          statusListForm(),
          dcApiForm(),
          scimForm(),
          samlForm(),
        ],
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
        body: stringMembers(FIELDS),
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as Partial<Record<keyof typeof FIELDS, string>>;
      reply.header('cache-control', 'no-store');
      const credential = body.credential?.trim() ? await credentialBlocks(body.credential, body.jwks) : [];
      const list = body.status_list?.trim()
        ? await statusListBlocks(ctx.lookingGlass, body.status_list, body.idx ?? '')
        : [];
      return sendPage(request, reply, {
        title: 'Looking glass',
        noindex: true,
        blocks: [
          ...(await lookingGlassPage(body.token?.trim(), body.jwks)),
          credentialForm,
          ...credential,
          statusListForm(body.status_list?.trim(), body.idx?.trim()),
          ...list,
          dcApiForm(body.dc_request?.trim(), body.dc_response?.trim(), body.dc_origin?.trim()),
          ...(body.dc_request?.trim()
            ? await dcApiBlocks(ctx.lookingGlass, body.dc_request, body.dc_response ?? '', body.dc_origin ?? '')
            : []),
          scimForm(body.scim?.trim()),
          ...(body.scim?.trim() ? scimBlocks(body.scim) : []),
          samlForm(body.saml?.trim(), body.saml_certificate?.trim()),
          ...(body.saml?.trim() ? await samlBlocks(ctx.saml, body.saml, body.saml_certificate) : []),
        ],
      });
    },
  );
}
