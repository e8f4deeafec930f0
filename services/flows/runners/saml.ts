import { FlowFailure, expectStatus, type FlowRunners, type RunContext } from '../registry.ts';
import { readPostForm, type PostForm } from '../../saml/post-form.ts';
import { ruleOfCheck } from '../../saml/sp/check-rules.ts';
import { randomToken } from '../../crypto/random.ts';

/** A browser of this origin: its cookies (the IdP's and the SP's sessions), carried by hand between the recorded requests. */
class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly run: RunContext) {}

  async send(step: string, url: string, init: { form?: Record<string, string> } = {}, notes: string[] = []) {
    const target = new URL(url, this.run.base);
    const sameOrigin = target.origin === new URL(this.run.base).origin;
    const jar = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const headers: Record<string, string> = jar && sameOrigin ? { cookie: jar } : {};
    const response = await this.run.http.send(step, target.href, { ...init, headers }, notes);
    const set = response.headers.get('set-cookie');
    if (set) {
      const [pair] = set.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
      if (value) this.cookies.set(name, value);
      else this.cookies.delete(name);
    }
    return response;
  }

  /** The auto-submitted form of an HTTP-POST binding page: its action and hidden fields. */
  static form(html: string): PostForm {
    const form = readPostForm(html);
    if (!form) throw new FlowFailure('the page has no HTTP-POST binding form');
    return form;
  }

  /** Signs in as a demo user on the IdP's login page the browser was sent to. */
  async signIn(loginUrl: string, username: string) {
    expectStatus((await this.send('Login page (person)', loginUrl)).status, 200, 'login page');
    return this.send(
      'Sign in as a demo user (person)',
      loginUrl,
      { form: { username, password: `${username}-demo-password` } },
      ['Acting as the person: demo passwords are published; the IdP starts its session (a cookie)'],
    );
  }

  /** Posts the Response form to the SP's ACS and expects the SP to sign the person in. */
  async deliver(page: { status: number; text: string }, step = 'Response to the ACS (HTTP-POST)') {
    expectStatus(page.status, 200, 'the HTTP-POST binding page');
    const form = Browser.form(page.text);
    const acs = await this.send(step, form.action, { form: form.fields }, [
      'SAML profiles §4.1.4.3: the SP checks the signatures, issuer, audience, recipient, InResponseTo, times and one-time use, then decrypts',
    ]);
    expectStatus(acs.status, 200, 'the ACS');
    return acs;
  }
}

/** SP-initiated web SSO: our SP → our IdP over HTTP-Redirect, a demo user signs in, the Response is POSTed back. */
async function webSso(run: RunContext): Promise<void> {
  const browser = new Browser(run);
  const binding = run.options.binding === 'post' ? 'post' : 'redirect';
  const start = await browser.send('AuthnRequest from the SP', `/saml/sp/login?binding=${binding}`, {}, [
    'SAML core §3.4.1: a signed AuthnRequest naming the ACS URL; its ID comes back as InResponseTo',
  ]);
  let atIdp;
  if (binding === 'redirect') {
    expectStatus(start.status, 303, 'login start');
    atIdp = await browser.send('AuthnRequest at the IdP (HTTP-Redirect)', start.headers.get('location')!, {}, [
      'SAML bindings §3.4: DEFLATE, base64, and a signature over the query string',
    ]);
  } else {
    const form = Browser.form(start.text);
    atIdp = await browser.send('AuthnRequest at the IdP (HTTP-POST)', form.action, { form: form.fields }, [
      'SAML bindings §3.5: base64 in a form, the signature enveloped in the XML',
    ]);
  }
  expectStatus(atIdp.status, 303, 'the IdP (no session yet: the login page)');
  const answered = await browser.signIn(atIdp.headers.get('location')!, 'alice');
  await browser.deliver(answered);
  const again = await browser.send(
    'A second AuthnRequest in the same session',
    (await browser.send('Another login at the SP', '/saml/sp/login')).headers.get('location')!,
    {},
    ['SAML core §3.4.1: without ForceAuthn the IdP answers from its session, no login page'],
  );
  await browser.deliver(again, 'Second Response to the ACS');
}

/** IdP-initiated SSO: the person picks an SP at the IdP and an unsolicited Response goes to its ACS. */
async function idpInitiated(run: RunContext): Promise<void> {
  const browser = new Browser(run);
  const start = await browser.send(
    'Pick an SP at the IdP',
    '/saml/idp/initiate',
    { form: { sp: 'portico-sp', RelayState: 'from-idp' } },
    ['SAML profiles §4.1.5: no AuthnRequest; the Response has no InResponseTo'],
  );
  expectStatus(start.status, 303, 'the IdP (no session yet: the login page)');
  await browser.deliver(await browser.signIn(start.headers.get('location')!, 'bob'));
}

/** Single logout started at the IdP: each SP of the session is sent a LogoutRequest in turn. */
async function singleLogout(run: RunContext): Promise<void> {
  const browser = new Browser(run);
  const start = await browser.send('AuthnRequest from the SP', '/saml/sp/login');
  const atIdp = await browser.send('AuthnRequest at the IdP', start.headers.get('location')!);
  await browser.deliver(await browser.signIn(atIdp.headers.get('location')!, 'alice'));
  const out = await browser.send('Sign out at the IdP', '/saml/idp/logout', { form: {} }, [
    'SAML profiles §4.4.3: the IdP sends a signed LogoutRequest to each SP of the session',
  ]);
  expectStatus(out.status, 303, 'logout');
  const atSp = await browser.send('LogoutRequest at the SP (HTTP-Redirect)', out.headers.get('location')!, {}, [
    'SAML profiles §4.4.4.1: the SP checks the IdP’s signature and answers a LogoutResponse',
  ]);
  expectStatus(atSp.status, 303, 'the SP’s single logout');
  const back = await browser.send('LogoutResponse at the IdP', atSp.headers.get('location')!, {}, [
    'SAML core §3.7.3.2: every SP confirmed, so the logout is complete (no PartialLogout)',
  ]);
  expectStatus(back.status, 200, 'the end of logout');
  if (back.text.includes('Partial logout')) throw new FlowFailure('the logout was partial');
}

/**
 * SP-initiated web SSO at an IdP of the user's own (target `idp_metadata_url`): our SP fetches its metadata
 * through the outbound guard and sends it a signed AuthnRequest; the person signs in there; the IdP's
 * Response comes to our ACS, which sends the browser back to the run with each check's verdict.
 */
async function webSsoAtYourIdp(run: RunContext): Promise<void> {
  const metadataUrl = run.samlTarget?.idpMetadataUrl;
  if (!metadataUrl) throw new FlowFailure('saml/web-sso against a target takes {"target": {"idp_metadata_url": "…"}}');
  const state = randomToken(16);
  const query = new URLSearchParams({ idp_metadata_url: metadataUrl, RelayState: state, return_to: 'run' });
  const start = await run.http.send('AuthnRequest from our SP to your IdP', `${run.base}/saml/sp/login?${query}`, {}, [
    'Our SP reads your metadata (through the outbound guard, certificates checked) and signs an AuthnRequest',
  ]);
  expectStatus(start.status, 303, 'login start');
  const back = await run.awaitUser(start.headers.get('location')!, state);
  const passed = (back.get('checks') ?? '').split(' ').filter(Boolean);
  for (const check of passed) await run.check({ check, verdict: 'passed', rule: ruleOfCheck(check), detail: 'held' });
  if (back.get('saml') !== 'signed_in') {
    const check = back.get('check') ?? 'response';
    await run.check({ check, verdict: 'failed', rule: ruleOfCheck(check), detail: back.get('reason') ?? 'refused' });
    throw new FlowFailure(`our SP refused your IdP's Response: ${check}`);
  }
}

/** The SAML flows that run against an IdP of the user's own. */
export function registerSamlTargetRunners(runners: FlowRunners): void {
  runners.register('saml', 'web-sso', webSsoAtYourIdp);
}

export function registerSamlRunners(runners: FlowRunners): void {
  runners.register('saml', 'web-sso', webSso);
  runners.register('saml', 'idp-initiated', idpInitiated);
  runners.register('saml', 'single-logout', singleLogout);
}
