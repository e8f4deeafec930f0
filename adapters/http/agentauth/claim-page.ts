import type { FastifyInstance, FastifyReply } from 'fastify';
import { OAuthError } from '../../../services/errors.ts';
import { html, layout, type Html } from '../pages/html.ts';
import type { MainContext } from '../main/context.ts';

function form(userCode: string, message?: Html): Html {
  return html`<h1>Claim an agent</h1>
<p>An agent asked to be bound to a person. Enter the code it showed you, then approve or decline.</p>
<p class="notice">You are not signed in: this sandbox does not authenticate the approver, and every code is public.
Approving binds the agent to the email address the agent gave when it started the claim.</p>
${message ?? ''}
<form method="post" action="/agentauth/claim">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" required maxlength="20" value="${userCode}" placeholder="BCDF-GHJK">
<div><button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="decline" class="secondary">Decline</button></div>
</form>`;
}

const send = (reply: FastifyReply, status: number, title: string, body: Html) =>
  reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(layout(title, body));

/** The page where a person approves or declines an agent's claim (RFC 8628 section 3.3). */
export async function claimPageRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  app.get('/agentauth/claim', {
    schema: {
      summary: 'Claim page (HTML) where a person enters the user code',
      tags: ['agentauth'],
      querystring: { type: 'object', properties: { user_code: { type: 'string', maxLength: 20 } } },
    },
  }, async (request, reply) => send(reply, 200, 'Claim an agent', form((request.query as { user_code?: string }).user_code ?? '')));

  app.post('/agentauth/claim', {
    schema: {
      summary: 'Approve or decline a claim (HTML form post)',
      tags: ['agentauth'],
      consumes: ['application/x-www-form-urlencoded'],
      body: {
        type: 'object',
        properties: { user_code: { type: 'string', maxLength: 20 }, decision: { type: 'string', maxLength: 20 } },
      },
    },
  }, async (request, reply) => {
    const { user_code: userCode = '', decision } = (request.body ?? {}) as { user_code?: string; decision?: string };
    if (decision !== 'approve' && decision !== 'decline') {
      return send(reply, 400, 'Claim an agent', form(userCode, html`<p class="notice error" role="alert">Choose Approve or Decline.</p>`));
    }
    try {
      const agentId = await ctx.agentAuth.decide(userCode, decision);
      const done = decision === 'approve'
        ? html`<h1>Agent approved</h1><p class="notice ok" role="status">Agent <code>${agentId}</code> is now bound to you. It will receive write access on its next poll.</p>`
        : html`<h1>Claim declined</h1><p class="notice" role="status">Agent <code>${agentId}</code> was not bound to you.</p>`;
      return send(reply, 200, decision === 'approve' ? 'Agent approved' : 'Claim declined', done);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      return send(reply, 400, 'Claim an agent', form(userCode, html`<p class="notice error" role="alert">${error.description}</p>`));
    }
  });
}
