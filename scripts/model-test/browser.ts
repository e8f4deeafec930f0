import type { Http } from './http.ts';
import { ModelMismatch } from './model.ts';

/** The demo person of decisions §3 (a deployment that sets DEMO_PASSWORD_ALICE needs the same here). */
const PERSON = { username: 'alice', password: 'alice-demo-password' };

/**
 * Signs the demo person in and consents, as a browser would: the authorization request redirects to
 * the interaction, whose login and consent forms are posted; returns the redirect to the client.
 */
export async function authorizeAsPerson(
  http: Http,
  authorizationUrl: string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  const first = await http.call(authorizationUrl);
  const interaction = redirectOf('authorization request', first, http.base);
  if (!interaction.pathname.includes('/interaction/')) return interaction;
  await http.call(interaction.href);
  const login = await http.call(`${interaction.href}/login`, { form: PERSON });
  redirectOf('login', login, http.base);
  const consent = await http.call(`${interaction.href}/consent`, { form: { decision } });
  return redirectOf('consent', consent, http.base);
}

function redirectOf(what: string, answer: { status: number; headers: Headers }, base: string): URL {
  const location = answer.headers.get('location');
  if (answer.status !== 303 || !location)
    throw new ModelMismatch(`${what}: expected a 303 redirect, got ${answer.status}`);
  return new URL(location, base);
}
