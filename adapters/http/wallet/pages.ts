import type { Block, PageDocument } from '../../../services/pages/document.ts';
import { subjectLabel, type WalletSession } from '../../../services/wallet/sessions.ts';
import type { PageChrome } from '../pages/respond.ts';
import type { WalletContext, WalletRoutes } from './context.ts';
import { requestSession } from './request-session.ts';
import { sendPage } from '../pages/respond.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import type { PendingRequest } from '../../../services/wallet/presentation/service.ts';

export const WALLET_CHROME: PageChrome = { nav: [['Wallet', '/'], ['API recipes', '/llms-full.txt'], ['Agent skill', '/.well-known/agent-skills/use-wallet-harness/SKILL.md']] };

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
      { kind: 'notice', tone: 'info', inlines: ['This browser has its own wallet session, kept in memory for ', { code: `${Math.round(ctx.settings.sessionTtlMs / 60_000)} min` }, ' after the last use. Agents drive the same wallet over the JSON API: see the ', { link: 'recipes', href: '/llms-full.txt' }, '.'] },
      h(2, 'Session'),
      {
        kind: 'table',
        head: ['Field', 'Value'],
        rows: [
          [['Session'], [{ code: session.id }]],
          [['Holder DID'], [{ code: session.did }]],
          [['Subject label'], [{ code: subjectLabel(ctx.settings.defaultSubject, session.id) }]],
          [['Holder key thumbprint'], [{ code: session.holder.kid }]],
          [['Device key (mdoc)'], [{ code: ctx.deviceKey.pair.kid }, ctx.deviceKey.persistent ? ' (persistent)' : ' (ephemeral: lost on restart)']],
          [['HAIP issuance material'], [ctx.settings.haipEnabled ? 'configured' : 'not configured']],
        ],
      },
      h(2, 'Credentials'),
      credentials.length
        ? { kind: 'table', head: ['Credential', 'Format', 'Type', 'Claims'], rows: credentials.map((c) => [[{ code: c.credential_id }], [c.format], [c.vct ?? c.doctype ?? (c.types ?? []).join(', ')], [JSON.stringify(c.claims)]]) }
        : { kind: 'paragraph', inlines: ['No credentials yet. Issuance: ', { code: 'POST /api/issue' }, ' or ', { code: 'POST /api/import' }, '.'] },
      h(2, 'Pending presentation requests'),
      pending.length
        ? { kind: 'list', items: pending.map((id) => [{ link: `Review request ${id}`, href: `/consent/${id}` }]) }
        : { kind: 'paragraph', inlines: ['None. A verifier request resolved with ', { code: 'POST /api/resolve' }, ' or opened at ', { code: '/authorize' }, ' waits here for consent.'] },
    ],
  };
}

/** One checkbox per claim path the request may receive from each matching credential. */
function disclosurePicker(action: string, view: Record<string, any>): string {
  const matches = (view.credential_matches?.matches ?? {}) as Record<string, Array<{ credential_id: string; claims: Array<Array<string | number>> }>>;
  const rows = Object.entries(matches).flatMap(([queryId, list]) =>
    (list[0]?.claims ?? []).map((path) => {
      const value = `${queryId}|${JSON.stringify(path)}`;
      return `<li><label><input type="checkbox" name="claim" value="${escapeHtml(value)}" checked> <code>${escapeHtml(queryId)}</code>: <code>${escapeHtml(path.join('.'))}</code> (from <code>${escapeHtml(list[0].credential_id)}</code>)</label></li>`;
    }),
  );
  const picker = rows.length ? `<fieldset><legend>Claims to disclose</legend><ul>${rows.join('')}</ul></fieldset>` : '';
  return `<form method="post" action="${escapeHtml(action)}">${picker}<button type="submit" name="decision" value="approve">Present</button> <button type="submit" name="decision" value="decline" class="secondary">Decline</button></form>`;
}

/** The review page: who asks, how far it is trusted, what it asks for, what this session can answer. */
function consentPage(action: string, view: Record<string, any>): PageDocument {
  const trust = view.trust as { trusted_target: boolean; verified: boolean; error?: string };
  const queries = ((view.dcql_query?.credentials ?? []) as Array<{ id: string; format: string; claims?: Array<{ path: unknown[] }> }>);
  return {
    title: 'Review request',
    noindex: true,
    blocks: [
      h(1, 'Review request'),
      { kind: 'paragraph', inlines: ['Verifier ', { code: String(view.client_id) }, ' asks for a presentation, answered to ', { code: String(view.response_uri) }, ` (${String(view.response_mode)}).`] },
      trust.verified
        ? { kind: 'notice', tone: 'ok', inlines: [`The request is signed and its ${String(view.client_id_prefix)} client identifier checks out.`] }
        : { kind: 'notice', tone: 'warning', inlines: [`The request is not authenticated: ${trust.error ?? 'unverified'}.`] },
      ...(trust.trusted_target ? [] : [{ kind: 'notice' as const, tone: 'warning' as const, inlines: ['This verifier is not the wallet\'s configured target: presenting sends your claims to another origin.'] }]),
      h(2, 'Requested'),
      { kind: 'list', items: queries.map((q) => [{ code: q.id }, ` ${q.format}: `, (q.claims ?? []).map((c) => c.path.join('.')).join(', ') || 'the whole credential']) },
      view.credential_matches?.satisfiable
        ? { kind: 'html', html: disclosurePicker(action, view), markdown: [{ kind: 'paragraph', inlines: ['Decide: ', { code: `POST ${action}` }, ' with ', { code: 'decision=approve' }, ' (and ', { code: 'claim=<query id>|<JSON path>' }, ' per claim) or ', { code: 'decision=decline' }, '.'] }] }
        : { kind: 'notice', tone: 'error', inlines: ['No credential of this session answers the request. ', { link: 'Back to the wallet', href: '/' }] },
    ],
  };
}

/** `/consent/{request_id}`: review, pick what to disclose, present or decline. */
export const consentRoutes: WalletRoutes = (app, ctx) => {
  const missing = (id: string): PageDocument => ({
    title: 'No such request',
    noindex: true,
    blocks: [h(1, 'No such request'), { kind: 'paragraph', inlines: ['This session has no pending presentation request ', { code: id }, '. Requests are kept per session, in memory, until answered or until the session lapses.'] }, { kind: 'paragraph', inlines: [{ link: 'Back to the wallet', href: '/' }] }],
  });
  const params = { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } };
  app.get('/consent/:id', { schema: { summary: 'Consent page of a pending presentation request', params } }, async (request, reply) => {
    const session = await requestSession(ctx, request, reply);
    const id = (request.params as { id: string }).id;
    reply.header('cache-control', 'no-store');
    const pending = session.pending.get(id) as PendingRequest | undefined;
    if (!pending) return sendPage(request, reply, missing(id), 404, WALLET_CHROME);
    return sendPage(request, reply, consentPage(`${request.url.split('?')[0]}`, await ctx.presentation.view(session, pending)), 200, WALLET_CHROME);
  });
  app.post('/consent/:id', {
    schema: { summary: 'Approve (with the picked claims) or decline a pending presentation request', params, body: { type: 'object', properties: { decision: { type: 'string', enum: ['approve', 'decline'] }, claim: { anyOf: [{ type: 'string', maxLength: 2000 }, { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 2000 } }] } } } },
  }, async (request, reply) => {
    const session = await requestSession(ctx, request, reply);
    const id = (request.params as { id: string }).id;
    reply.header('cache-control', 'no-store');
    if (!session.pending.has(id)) return sendPage(request, reply, missing(id), 404, WALLET_CHROME);
    const body = (request.body ?? {}) as { decision?: string; claim?: string | string[] };
    if (body.decision !== 'approve') {
      await ctx.presentation.decline(session, id);
      return sendPage(request, reply, { title: 'Declined', noindex: true, blocks: [h(1, 'Declined'), { kind: 'paragraph', inlines: ['The verifier was told ', { code: 'access_denied' }, '. ', { link: 'Back to the wallet', href: '/' }] }] }, 200, WALLET_CHROME);
    }
    const disclose: Record<string, Array<Array<string | number>>> = {};
    for (const entry of Array.isArray(body.claim) ? body.claim : body.claim ? [body.claim] : []) {
      const bar = entry.indexOf('|');
      try {
        const path = JSON.parse(entry.slice(bar + 1)) as unknown;
        if (bar > 0 && Array.isArray(path)) (disclose[entry.slice(0, bar)] ??= []).push(path as Array<string | number>);
      } catch {
        // an unreadable pick discloses nothing
      }
    }
    const result = await ctx.presentation.present(session, { request_id: id, disclose, approve_external_trust: true });
    return sendPage(request, reply, {
      title: 'Presented',
      noindex: true,
      blocks: [
        h(1, 'Presented'),
        { kind: 'paragraph', inlines: ['The verifier answered HTTP ', { code: String(result.upstream_status) }, '.'] },
        ...(typeof result.redirect_uri === 'string' ? [{ kind: 'paragraph' as const, inlines: [{ link: 'Continue at the verifier', href: result.redirect_uri }] }] : []),
        ...(typeof result.redirect_uri_refused === 'string' ? [{ kind: 'notice' as const, tone: 'warning' as const, inlines: [`The verifier's redirect was not followed: ${result.redirect_uri_refused}.`] }] : []),
        { kind: 'paragraph', inlines: [{ link: 'Back to the wallet', href: '/' }] },
      ],
    }, 200, WALLET_CHROME);
  });
};
