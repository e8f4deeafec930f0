import type { FastifyReply } from 'fastify';
import type { DemoClient } from '../../../services/oauth/demo-clients.ts';
import type { DemoUser } from '../../../services/oauth/demo-users.ts';
import type { AuthorizationRequest } from '../../../machines/interaction.ts';
import { escapeHtml, html, layout, type Html } from '../pages/html.ts';

export function sendHtml(reply: FastifyReply, status: number, title: string, body: Html): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action *; frame-ancestors 'none'")
    .type('text/html; charset=utf-8')
    .send(layout(title, body));
}

export function loginPage(action: string, client: DemoClient, users: DemoUser[], error?: string): Html {
  return html`<h1>Sign in</h1>
<p><strong>${client.client_name}</strong> (<code>${client.client_id}</code>) asks you to sign in.</p>
<p class="notice">Demo users and their passwords are published at <a href="/oauth2/demo/users">/oauth2/demo/users</a>.</p>
${error ? html`<p class="notice error" role="alert">${error}</p>` : ''}
<form method="post" action="${action}">
<label for="username">Demo user</label>
<select id="username" name="username">${users.map((u) => html`<option value="${u.id}">${u.name} (${u.id})</option>`)}</select>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div><button type="submit">Sign in</button></div>
</form>`;
}

export function consentPage(action: string, client: DemoClient, request: AuthorizationRequest, user: DemoUser): Html {
  return html`<h1>Allow access?</h1>
<p>Signed in as <strong>${user.name}</strong> (<code>${user.id}</code>).</p>
<p><strong>${client.client_name}</strong> (<code>${client.client_id}</code>) asks for:</p>
<ul>${request.scope.split(' ').map((s) => html`<li><code>${s}</code></li>`)}</ul>
<p>It will be sent back to <code>${request.redirectUri}</code>.</p>
<form method="post" action="${action}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`;
}

export function errorPage(error: string, description: string): Html {
  return html`<h1>This request cannot continue</h1>
<p class="notice error" role="alert"><code>${error}</code>: ${description}</p>
<p>The client's redirect URI could not be trusted, so the error is shown here instead of being sent back.</p>`;
}

/** RFC 6749 section 4.1.2 with response_mode=form_post (OAuth 2.0 Form Post Response Mode). */
export function formPostPage(redirectUri: string, params: Record<string, string>): string {
  const inputs = Object.entries(params)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Submitting…</title></head>
<body onload="document.forms[0].submit()"><form method="post" action="${escapeHtml(redirectUri)}">${inputs}
<noscript><button type="submit">Continue</button></noscript></form></body></html>`;
}
