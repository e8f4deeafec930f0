import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../../../services/errors.ts';
import type { Block, PageDocument } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import type { MainContext } from '../main/context.ts';
import { sendPage } from '../pages/respond.ts';

type PendingClaim = { agent_id: string; email: string; registered_at: number };

/** The agent and the email the person would bind it to, or a prompt to check the code first. */
function pendingBlock(pending: PendingClaim | undefined, userCode: string): Block[] {
  if (pending) {
    return [
      { kind: 'heading', level: 2, text: 'You are approving' },
      {
        kind: 'table',
        head: ['', ''],
        rows: [
          [['Agent'], [{ code: pending.agent_id }]],
          [['Bound to the email'], [{ code: pending.email }]],
          [['Registered'], [new Date(pending.registered_at).toISOString()]],
        ],
      },
    ];
  }
  if (!userCode) return [];
  return [
    {
      kind: 'notice',
      tone: 'warning',
      inlines: ['No outstanding claim has this code: check it, or ask the agent for a new one.'],
    },
  ];
}

function claimForm(userCode: string, message?: Block, pending?: PendingClaim): PageDocument {
  return {
    title: 'Claim an agent',
    noindex: true,
    blocks: [
      { kind: 'heading', level: 1, text: 'Claim an agent' },
      {
        kind: 'paragraph',
        inlines: ['An agent asked to be bound to a person. Enter the code it showed you, then approve or decline.'],
      },
      {
        kind: 'notice',
        tone: 'warning',
        inlines: [
          'You are not signed in: this sandbox does not authenticate the approver, and every code is public. Approving binds the agent to the email address the agent gave when it started the claim.',
        ],
      },
      ...(message ? [message] : []),
      ...pendingBlock(pending, message ? '' : userCode),
      {
        kind: 'html',
        html: `<form method="post" action="/agentauth/claim">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" required maxlength="20" value="${escapeHtml(userCode)}" placeholder="BCDF-GHJK">
<div><button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="decline" class="secondary">Decline</button></div>
</form>`,
        markdown: [
          {
            kind: 'paragraph',
            inlines: [
              'A person approves with ',
              { code: 'POST /agentauth/claim' },
              ' (form fields ',
              { code: 'user_code' },
              ' and ',
              { code: 'decision' },
              ' = approve or decline). Agents must not do this themselves.',
            ],
          },
        ],
      },
    ],
  };
}

const send = (request: FastifyRequest, reply: FastifyReply, status: number, doc: PageDocument) =>
  sendPage(request, reply.header('cache-control', 'no-store'), doc, status);
const alert = (text: string): Block => ({ kind: 'notice', tone: 'error', inlines: [text] });

/** The page where a person approves or declines an agent's claim (RFC 8628 section 3.3). */
export async function claimPageRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  app.get(
    '/agentauth/claim',
    {
      schema: {
        summary: 'Claim page (HTML, or markdown) where a person enters the user code',
        tags: ['agentauth'],
        querystring: { type: 'object', properties: { user_code: { type: 'string', maxLength: 20 } } },
      },
    },
    async (request, reply) => {
      const userCode = ((request.query as { user_code?: string }).user_code ?? '').trim();
      return send(
        request,
        reply,
        200,
        claimForm(userCode, undefined, userCode ? await ctx.agentAuth.pendingClaim(userCode) : undefined),
      );
    },
  );

  app.post(
    '/agentauth/claim',
    {
      schema: {
        summary: 'Approve or decline a claim (HTML form post)',
        tags: ['agentauth'],
        consumes: ['application/x-www-form-urlencoded'],
        body: {
          type: 'object',
          properties: { user_code: { type: 'string', maxLength: 20 }, decision: { type: 'string', maxLength: 20 } },
        },
      },
    },
    async (request, reply) => {
      const { user_code: userCode = '', decision } = (request.body ?? {}) as { user_code?: string; decision?: string };
      if (decision !== 'approve' && decision !== 'decline')
        return send(request, reply, 400, claimForm(userCode, alert('Choose Approve or Decline.')));
      try {
        const agentId = await ctx.agentAuth.decide(userCode, decision);
        const approved = decision === 'approve';
        return send(request, reply, 200, {
          title: approved ? 'Agent approved' : 'Claim declined',
          noindex: true,
          blocks: [
            { kind: 'heading', level: 1, text: approved ? 'Agent approved' : 'Claim declined' },
            approved
              ? {
                  kind: 'notice',
                  tone: 'ok',
                  inlines: [
                    'Agent ',
                    { code: agentId },
                    ' is now bound to you. It will receive write access on its next poll.',
                  ],
                }
              : { kind: 'notice', tone: 'info', inlines: ['Agent ', { code: agentId }, ' was not bound to you.'] },
          ],
        });
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        return send(request, reply, 400, claimForm(userCode, alert(error.description)));
      }
    },
  );
}
