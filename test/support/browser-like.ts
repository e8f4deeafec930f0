/**
 * Drives our login and consent forms over HTTP the way a browser would: follows the authorization
 * request to the interaction, posts the demo user's credentials, approves, and returns where the
 * browser would land (the client's redirect URI with its parameters, or a form_post page).
 */
export async function authorizeAsBrowser(
  authorizationUrl: string | URL,
  options: { username?: string; password?: string; decision?: 'approve' | 'deny' } = {},
): Promise<{
  location?: string;
  formPost?: { action: string; fields: Record<string, string> };
  status: number;
  pages: Array<{ url: string; status: number; body: string }>;
}> {
  const pages: Array<{ url: string; status: number; body: string }> = [];
  const first = await fetch(authorizationUrl, { redirect: 'manual' });
  if (first.status !== 303)
    return {
      status: first.status,
      location: first.headers.get('location') ?? undefined,
      pages: [{ url: String(authorizationUrl), status: first.status, body: await first.text() }],
    };
  const location = first.headers.get('location')!;
  const origin = new URL(authorizationUrl).origin;
  const interaction = new URL(location, origin);
  // A redirect straight back to the client (an error response) ends here.
  if (!interaction.pathname.includes('/interaction/')) return { status: 303, location: interaction.href, pages };
  const loginPage = await fetch(interaction);
  pages.push({ url: interaction.href, status: loginPage.status, body: await loginPage.text() });
  const username = options.username ?? 'alice';
  const login = await fetch(`${interaction.href}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password: options.password ?? `${username}-demo-password` }),
    redirect: 'manual',
  });
  if (login.status !== 303)
    return {
      status: login.status,
      pages: [...pages, { url: `${interaction.href}/login`, status: login.status, body: await login.text() }],
    };
  const consentPage = await fetch(interaction);
  pages.push({ url: interaction.href, status: consentPage.status, body: await consentPage.text() });
  const consent = await fetch(`${interaction.href}/consent`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ decision: options.decision ?? 'approve' }),
    redirect: 'manual',
  });
  if (consent.status === 200) {
    const body = await consent.text();
    const action = /<form method="post" action="([^"]+)"/.exec(body)?.[1] ?? '';
    const fields = Object.fromEntries(
      [...body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], decode(m[2])]),
    );
    return { status: 200, formPost: { action: decode(action), fields }, pages };
  }
  return { status: consent.status, location: consent.headers.get('location') ?? undefined, pages };
}

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
