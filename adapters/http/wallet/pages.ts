import { createHmac, randomBytes } from 'node:crypto';
import { sameText } from '../../../services/crypto/compare.ts';
import type { Block, PageDocument } from '../../../services/pages/document.ts';
import { subjectLabel, type WalletSession } from '../../../services/wallet/sessions.ts';
import type { PageChrome } from '../pages/respond.ts';
import type { WalletContext, WalletRoutes } from './context.ts';
import { requestSession } from './request-session.ts';
import { sendPage } from '../pages/respond.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import type { PendingRequest } from '../../../services/wallet/presentation/service.ts';

export const WALLET_CHROME: PageChrome = {
  nav: [
    ['Wallet', '/'],
    ['API recipes', '/llms-full.txt'],
    ['Agent skill', '/.well-known/agent-skills/use-wallet-harness/SKILL.md'],
  ],
};

const h = (level: 1 | 2 | 3, text: string): Block => ({ kind: 'heading', level, text });

/** The wallet for people: the session, its keys, credentials with their claims, pending requests. */
export function walletHomePage(ctx: WalletContext, session: WalletSession): PageDocument {
  const credentials = [...session.credentials.values()];
  const pending = [...session.pending.keys()];
  return {
    title: 'Wallet',
    description: 'A headless wallet for OID4VCI and OID4VP: this session, its keys and credentials',
    noindex: true,
    blocks: [
      h(1, 'Wallet'),
      {
        kind: 'notice',
        tone: 'info',
        inlines: [
          'This browser has its own wallet session, kept in memory for ',
          { code: `${Math.round(ctx.settings.sessionTtlMs / 60_000)} min` },
          ' after the last use. Agents drive the same wallet over the JSON API: see the ',
          { link: 'recipes', href: '/llms-full.txt' },
          '.',
        ],
      },
      h(2, 'Session'),
      {
        kind: 'table',
        head: ['Field', 'Value'],
        rows: [
          [['Session'], [{ code: session.id }]],
          [['Holder DID'], [{ code: session.did }]],
          [['Subject label'], [{ code: subjectLabel(ctx.settings.defaultSubject, session.id) }]],
          [['Holder key thumbprint'], [{ code: session.holder.kid }]],
          [
            ['Device key (mdoc)'],
            [
              { code: ctx.deviceKey.pair.kid },
              ctx.deviceKey.persistent ? ' (persistent)' : ' (ephemeral: lost on restart)',
            ],
          ],
          [['HAIP issuance material'], [ctx.settings.haipEnabled ? 'configured' : 'not configured']],
        ],
      },
      h(2, 'Credentials'),
      credentials.length
        ? {
            kind: 'table',
            head: ['Credential', 'Format', 'Type', 'Claims'],
            rows: credentials.map((c) => [
              [{ code: c.credential_id }],
              [c.format],
              [c.vct ?? c.doctype ?? (c.types ?? []).join(', ')],
              [JSON.stringify(c.claims)],
            ]),
          }
        : {
            kind: 'paragraph',
            inlines: [
              'No credentials yet. Issuance: ',
              { code: 'POST /api/issue' },
              ' or ',
              { code: 'POST /api/import' },
              '.',
            ],
          },
      h(2, 'Pending presentation requests'),
      pending.length
        ? { kind: 'list', items: pending.map((id) => [{ link: `Review request ${id}`, href: `/consent/${id}` }]) }
        : {
            kind: 'paragraph',
            inlines: [
              'None. A verifier request resolved with ',
              { code: 'POST /api/resolve' },
              ' or opened at ',
              { code: '/authorize' },
              ' waits here for consent.',
            ],
          },
    ],
  };
}

type ClaimPath = Array<string | number>;
type CredentialQueryView = {
  id: string;
  format: string;
  claims?: Array<{ id?: string; path: ClaimPath }>;
  claim_sets?: string[][];
};

/**
 * DCQL §6.4: without `claim_sets` every listed claim is required; with them, the claims that every
 * claim set names are. Keyed `<query id>|<JSON path>`, as the picker's values are.
 */
function requiredClaims(queries: CredentialQueryView[]): Set<string> {
  const required = new Set<string>();
  for (const query of queries) {
    for (const claim of query.claims ?? []) {
      const inEverySet =
        !query.claim_sets || (claim.id !== undefined && query.claim_sets.every((set) => set.includes(claim.id!)));
      if (inEverySet) required.add(`${query.id}|${JSON.stringify(claim.path)}`);
    }
  }
  return required;
}

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
const decideButtons = (canPresent: boolean) =>
  `${canPresent ? '<button type="submit" name="decision" value="approve">Present</button> ' : ''}<button type="submit" name="decision" value="decline" class="secondary">Decline</button>`;

/** One checkbox per claim path the request may receive from each matching credential; required ones marked. */
function disclosurePicker(action: string, view: Record<string, any>, csrf: string, required: Set<string>): string {
  const matches = (view.credential_matches?.matches ?? {}) as Record<
    string,
    Array<{ credential_id: string; claims: ClaimPath[] }>
  >;
  const rows = Object.entries(matches).flatMap(([queryId, list]) =>
    (list[0]?.claims ?? []).map((path) => {
      const value = `${queryId}|${JSON.stringify(path)}`;
      const mark = required.has(value) ? ' <strong>(required)</strong>' : ' (optional)';
      return `<li><label><input type="checkbox" name="claim" value="${escapeHtml(value)}" checked> <code>${escapeHtml(queryId)}</code>: <code>${escapeHtml(path.join('.'))}</code>${mark} (from <code>${escapeHtml(list[0].credential_id)}</code>)</label></li>`;
    }),
  );
  const picker = rows.length
    ? `<fieldset><legend>Claims to disclose</legend><p>Unticking a required claim leaves the request unanswered in part: you will be asked to confirm.</p><ul>${rows.join('')}</ul></fieldset>`
    : '';
  return `<form method="post" action="${escapeHtml(action)}">${hidden('csrf', csrf)}${picker}${decideButtons(true)}</form>`;
}

/** The review page: who asks, how far it is trusted, what it asks for, what this session can answer. */
function consentPage(action: string, view: Record<string, any>, csrf: string): PageDocument {
  const trust = view.trust as { trusted_target: boolean; verified: boolean; error?: string };
  const queries = (view.dcql_query?.credentials ?? []) as CredentialQueryView[];
  const required = requiredClaims(queries);
  const satisfiable = view.credential_matches?.satisfiable === true;
  const decide: Block[] = [
    {
      kind: 'paragraph',
      inlines: [
        'Decide: ',
        { code: `POST ${action}` },
        ' with ',
        { code: `csrf=${csrf}` },
        ' and ',
        ...(satisfiable
          ? [{ code: 'decision=approve' }, ' (and ', { code: 'claim=<query id>|<JSON path>' }, ' per claim) or ']
          : []),
        { code: 'decision=decline' },
        '.',
      ],
    },
  ];
  return {
    title: 'Review request',
    noindex: true,
    blocks: [
      h(1, 'Review request'),
      {
        kind: 'paragraph',
        inlines: [
          'Verifier ',
          { code: String(view.client_id) },
          ' asks for a presentation, answered to ',
          { code: String(view.response_uri) },
          ` (${String(view.response_mode)}).`,
        ],
      },
      trust.verified
        ? {
            kind: 'notice',
            tone: 'ok',
            inlines: [`The request is signed and its ${String(view.client_id_prefix)} client identifier checks out.`],
          }
        : {
            kind: 'notice',
            tone: 'warning',
            inlines: [`The request is not authenticated: ${trust.error ?? 'unverified'}.`],
          },
      ...(trust.trusted_target
        ? []
        : [
            {
              kind: 'notice' as const,
              tone: 'warning' as const,
              inlines: [
                "This verifier is not the wallet's configured target: presenting sends your claims to another origin.",
              ],
            },
          ]),
      h(2, 'Requested'),
      {
        kind: 'list',
        items: queries.map((q) => [
          { code: q.id },
          ` ${q.format}: `,
          (q.claims ?? [])
            .map(
              (c) =>
                `${c.path.join('.')}${required.has(`${q.id}|${JSON.stringify(c.path)}`) ? ' (required)' : ' (optional)'}`,
            )
            .join(', ') || 'the whole credential',
        ]),
      },
      ...(satisfiable
        ? [{ kind: 'html' as const, html: disclosurePicker(action, view, csrf, required), markdown: decide }]
        : [
            {
              kind: 'notice' as const,
              tone: 'error' as const,
              inlines: [
                'No credential of this session answers the request. You can still decline, so the verifier learns the answer. ',
                { link: 'Back to the wallet', href: '/' },
              ],
            },
            {
              kind: 'html' as const,
              html: `<form method="post" action="${escapeHtml(action)}">${hidden('csrf', csrf)}${decideButtons(false)}</form>`,
              markdown: decide,
            },
          ]),
    ],
  };
}

/** The second look when a required claim was unticked: send anyway, or decline. */
function confirmPage(action: string, csrf: string, picks: string[], missing: string[]): PageDocument {
  const form = `<form method="post" action="${escapeHtml(action)}">${hidden('csrf', csrf)}${hidden('confirm', 'yes')}${picks.map((pick) => hidden('claim', pick)).join('')}<button type="submit" name="decision" value="approve">Send anyway</button> <button type="submit" name="decision" value="decline" class="secondary">Decline</button></form>`;
  return {
    title: 'Required claims left out',
    noindex: true,
    blocks: [
      h(1, 'Required claims left out'),
      {
        kind: 'notice',
        tone: 'warning',
        inlines: [
          'The verifier asked for these claims as required; without them the presentation cannot satisfy its query, and it will most likely reject it:',
        ],
      },
      { kind: 'list', items: missing.map((m) => [{ code: m.replace('|', ': ') }]) },
      {
        kind: 'html',
        html: form,
        markdown: [
          {
            kind: 'paragraph',
            inlines: [
              'Send anyway: ',
              { code: `POST ${action}` },
              ' with ',
              { code: 'confirm=yes' },
              ', the same picks, and ',
              { code: `csrf=${csrf}` },
              '; or ',
              { code: 'decision=decline' },
              '.',
            ],
          },
        ],
      },
      { kind: 'paragraph', inlines: [{ link: 'Review the request again', href: action }] },
    ],
  };
}

/**
 * `/consent/{request_id}`: review, pick what to disclose, present or decline. The decision form carries
 * a per-session, per-request token (HMAC under a per-process secret, like the pending request itself
 * kept in memory only), and a browser's cross-site post is refused on `Sec-Fetch-Site` as well:
 * `SameSite=Lax` alone does not stop a same-site attacker.
 */
export const consentRoutes: WalletRoutes = (app, ctx) => {
  const formSecret = randomBytes(32);
  const csrfOf = (sessionId: string, requestId: string) =>
    createHmac('sha256', formSecret).update(`consent:${sessionId}:${requestId}`).digest('base64url');
  const missing = (id: string): PageDocument => ({
    title: 'No such request',
    noindex: true,
    blocks: [
      h(1, 'No such request'),
      {
        kind: 'paragraph',
        inlines: [
          'This session has no pending presentation request ',
          { code: id },
          '. Requests are kept per session, in memory, until answered or until the session lapses.',
        ],
      },
      { kind: 'paragraph', inlines: [{ link: 'Back to the wallet', href: '/' }] },
    ],
  });
  const forbidden = (why: string): PageDocument => ({
    title: 'Not accepted',
    noindex: true,
    blocks: [
      h(1, 'Not accepted'),
      { kind: 'paragraph', inlines: [why, ' ', { link: 'Back to the wallet', href: '/' }] },
    ],
  });
  const params = { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } };
  app.get(
    '/consent/:id',
    { schema: { summary: 'Consent page of a pending presentation request', params } },
    async (request, reply) => {
      const session = await requestSession(ctx, request, reply);
      const id = (request.params as { id: string }).id;
      reply.header('cache-control', 'no-store');
      const pending = session.pending.get(id) as PendingRequest | undefined;
      if (!pending) return sendPage(request, reply, missing(id), 404, WALLET_CHROME);
      return sendPage(
        request,
        reply,
        consentPage(
          `${request.url.split('?')[0]}`,
          await ctx.presentation.view(session, pending),
          csrfOf(session.id, id),
        ),
        200,
        WALLET_CHROME,
      );
    },
  );
  app.post(
    '/consent/:id',
    {
      schema: {
        summary:
          'Approve (with the picked claims) or decline a pending presentation request; csrf is the token of the consent form',
        params,
        body: {
          type: 'object',
          properties: {
            decision: { type: 'string', enum: ['approve', 'decline'] },
            csrf: { type: 'string', maxLength: 100 },
            confirm: { type: 'string', enum: ['yes'] },
            claim: {
              anyOf: [
                { type: 'string', maxLength: 2000 },
                { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 2000 } },
              ],
            },
          },
        },
      },
    },
    async (request, reply) => {
      const session = await requestSession(ctx, request, reply);
      const id = (request.params as { id: string }).id;
      reply.header('cache-control', 'no-store');
      const pending = session.pending.get(id) as PendingRequest | undefined;
      if (!pending) return sendPage(request, reply, missing(id), 404, WALLET_CHROME);
      const body = (request.body ?? {}) as {
        decision?: string;
        csrf?: string;
        confirm?: string;
        claim?: string | string[];
      };
      if (request.headers['sec-fetch-site'] === 'cross-site')
        return sendPage(
          request,
          reply,
          forbidden('A decision posted from another site is not taken.'),
          403,
          WALLET_CHROME,
        );
      if (typeof body.csrf !== 'string' || !sameText(body.csrf, csrfOf(session.id, id)))
        return sendPage(
          request,
          reply,
          forbidden(
            "This decision did not come from this request's consent form (its csrf token is missing or wrong). Open the request again to decide.",
          ),
          403,
          WALLET_CHROME,
        );
      const action = request.url.split('?')[0];
      if (body.decision !== 'approve') {
        await ctx.presentation.decline(session, id);
        return sendPage(
          request,
          reply,
          {
            title: 'Declined',
            noindex: true,
            blocks: [
              h(1, 'Declined'),
              {
                kind: 'paragraph',
                inlines: [
                  'The verifier was told ',
                  { code: 'access_denied' },
                  '. ',
                  { link: 'Back to the wallet', href: '/' },
                ],
              },
            ],
          },
          200,
          WALLET_CHROME,
        );
      }
      const picks = Array.isArray(body.claim) ? body.claim : body.claim ? [body.claim] : [];
      const view = await ctx.presentation.view(session, pending);
      const offered = new Set(
        Object.entries(
          (view.credential_matches as { matches?: Record<string, Array<{ claims: ClaimPath[] }>> }).matches ?? {},
        ).flatMap(([queryId, list]) => (list[0]?.claims ?? []).map((path) => `${queryId}|${JSON.stringify(path)}`)),
      );
      const left = [
        ...requiredClaims((view.dcql_query as { credentials?: CredentialQueryView[] })?.credentials ?? []),
      ].filter((claim) => offered.has(claim) && !picks.includes(claim));
      if (left.length > 0 && body.confirm !== 'yes')
        return sendPage(request, reply, confirmPage(action, body.csrf, picks, left), 200, WALLET_CHROME);
      const disclose: Record<string, ClaimPath[]> = Object.create(null);
      for (const entry of picks) {
        const bar = entry.indexOf('|');
        try {
          const path = JSON.parse(entry.slice(bar + 1)) as unknown;
          if (bar > 0 && Array.isArray(path)) (disclose[entry.slice(0, bar)] ??= []).push(path as ClaimPath);
        } catch {
          // an unreadable pick discloses nothing
        }
      }
      const result = await ctx.presentation.present(session, {
        request_id: id,
        disclose,
        approve_external_trust: true,
      });
      return sendPage(
        request,
        reply,
        {
          title: 'Presented',
          noindex: true,
          blocks: [
            h(1, 'Presented'),
            {
              kind: 'paragraph',
              inlines: [
                'The verifier received the answer (HTTP ',
                { code: String(result.upstream_status) },
                '). That status says it was received, not that it was accepted: the verifier checks the presentation on its own and tells its verdict at its result or the page it redirects to.',
              ],
            },
            ...(left.length > 0
              ? [
                  {
                    kind: 'notice' as const,
                    tone: 'warning' as const,
                    inlines: ['Sent without required claims: expect the verifier to reject it.'],
                  },
                ]
              : []),
            ...(typeof result.redirect_uri === 'string'
              ? [
                  {
                    kind: 'paragraph' as const,
                    inlines: [{ link: 'Continue at the verifier', href: result.redirect_uri }],
                  },
                ]
              : []),
            ...(typeof result.redirect_uri_refused === 'string'
              ? [
                  {
                    kind: 'notice' as const,
                    tone: 'warning' as const,
                    inlines: [`The verifier's redirect was not followed: ${result.redirect_uri_refused}.`],
                  },
                ]
              : []),
            { kind: 'paragraph', inlines: [{ link: 'Back to the wallet', href: '/' }] },
          ],
        },
        200,
        WALLET_CHROME,
      );
    },
  );
};
