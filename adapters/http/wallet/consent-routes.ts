import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, randomBytes } from 'node:crypto';
import { sameText } from '../../../services/crypto/compare.ts';
import type { PageDocument } from '../../../services/pages/document.ts';
import type { PendingRequest } from '../../../services/wallet/presentation/service.ts';
import { sendPage } from '../pages/respond.ts';
import { handoffWanted, sendHandoff } from '../handoff.ts';
import { WALLET_CHROME } from './chrome.ts';
import type { ClaimPath, CredentialQueryView } from './consent-pages.ts';
import type { WalletRoutes } from './context.ts';
import { requestSession } from './request-session.ts';

import { h } from '../pages/blocks.ts';
import { confirmPage, consentPage, requiredClaims } from './consent-pages.ts';

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
  /** The session's pending request named in the path; every consent answer is never cached. */
  const pendingOf = async (request: FastifyRequest, reply: FastifyReply) => {
    const session = await requestSession(ctx, request, reply);
    const id = (request.params as { id: string }).id;
    reply.header('cache-control', 'no-store');
    return { session, id, pending: session.pending.get(id) as PendingRequest | undefined };
  };
  app.get(
    '/consent/:id/qr',
    {
      schema: {
        summary:
          "The QR code of a pending request's openid4vp:// link, to carry it to a phone (a page with SVG; PNG with Accept image/png)",
        params,
      },
    },
    async (request, reply) => {
      const { id, pending } = await pendingOf(request, reply);
      if (!pending?.link) return sendPage(request, reply, missing(id), 404, WALLET_CHROME);
      const wanted = handoffWanted(request, 'text/html');
      return sendHandoff(
        request,
        reply,
        wanted === 'png' ? 'png' : 'html',
        pending.link,
        {
          title: 'A pending presentation request',
          explanation: 'The request as the verifier handed it: scan it with a wallet on a phone to answer it there.',
        },
        WALLET_CHROME,
      );
    },
  );
  app.get(
    '/consent/:id',
    { schema: { summary: 'Consent page of a pending presentation request', params } },
    async (request, reply) => {
      const { session, id, pending } = await pendingOf(request, reply);
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
            approve_unknown_transaction_types: { type: 'string', enum: ['yes'] },
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
      const { session, id, pending } = await pendingOf(request, reply);
      if (!pending) return sendPage(request, reply, missing(id), 404, WALLET_CHROME);
      const body = (request.body ?? {}) as {
        decision?: string;
        csrf?: string;
        confirm?: string;
        approve_unknown_transaction_types?: string;
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
        return sendPage(
          request,
          reply,
          confirmPage(action, body.csrf, picks, left, body.approve_unknown_transaction_types === 'yes'),
          200,
          WALLET_CHROME,
        );
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
        approve_unknown_transaction_types: body.approve_unknown_transaction_types === 'yes',
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
