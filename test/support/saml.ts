import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { startMainServer, type TestServer } from './main-server.ts';

/** The fields of the first HTML form of a page (the HTTP-POST binding's auto-submitted form). */
export function readForm(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form[^>]*action="([^"]*)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form in ${html.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields[m[1]] = unescape(m[2]);
  return { action: unescape(action), fields };
}

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * A browser of one person at this origin: keeps its sign-in session cookie (the OpenID Provider's and the
 * SAML IdP's, Path=/), follows the SSO steps, signs in when asked.
 */
export class SamlBrowser {
  cookie: string | undefined;

  constructor(
    readonly base: string,
    readonly user = 'alice',
  ) {}

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookie && url.startsWith(`${this.base}/`)) headers.set('cookie', this.cookie);
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    const set = response.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0];
    return response;
  }

  postForm(url: string, fields: Record<string, string>): Promise<Response> {
    return this.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /**
   * Sends a request (a Redirect URL, or a POST form) to the IdP and follows it to the auto-posted Response:
   * signs in on the login page when the IdP asks. Answers the final page's response.
   */
  async sso(start: { url: string } | { action: string; fields: Record<string, string> }): Promise<Response> {
    let response = 'url' in start ? await this.fetch(start.url) : await this.postForm(start.action, start.fields);
    if (response.status === 303) {
      const login = new URL(response.headers.get('location')!, this.base).href;
      expect(login).toContain('/saml/idp/login/');
      response = await this.postForm(login, { username: this.user, password: `${this.user}-demo-password` });
    }
    return response;
  }

  /** The SAMLResponse form the IdP answered with (after `sso`). */
  async responseForm(response: Response): Promise<{ action: string; fields: Record<string, string>; xml: string }> {
    const html = await response.text();
    expect(response.status, html.slice(0, 500)).toBe(200);
    const form = readForm(html);
    return { ...form, xml: Buffer.from(form.fields.SAMLResponse, 'base64').toString('utf8') };
  }
}

/** The IdP's signing certificate, read from its published metadata. */
export async function idpCertificate(base: string): Promise<string> {
  const xml = await (await fetch(`${base}/saml/idp/metadata`)).text();
  const body = /<md:KeyDescriptor use="signing">.*?<ds:X509Certificate>([^<]+)</.exec(xml)![1];
  return new X509Certificate(Buffer.from(body, 'base64')).toString();
}

/** The published demo SPs (`/saml/demo/sps`). */
export async function demoSps(base: string): Promise<{
  service_providers: Array<{
    id: string;
    entity_id: string;
    published_private_key_pem?: string;
    certificate_pem?: string;
  }>;
}> {
  return (await fetch(`${base}/saml/demo/sps`)).json();
}

/**
 * Peer libraries date their messages by the real clock; the server's manual clock is brought to it before
 * each test, so a slow machine never makes a peer's IssueInstant look like the future (15 s skew).
 */
export const clockToRealTime = (clock: { now(): number; set(ms: number): void }) => () => {
  if (Date.now() > clock.now()) clock.set(Date.now());
};

/**
 * One main origin for a file of SAML peer tests, started before them: the IdP's signing certificate and
 * the demo SPs' published key, which the peer libraries use, and the manual clock kept at real time
 * (the peers date their messages by it).
 */
export function useSamlPeerServer(): { server: TestServer; idpCert: string; demoKey: string } {
  const peer = {} as { server: TestServer; idpCert: string; demoKey: string };
  beforeAll(async () => {
    peer.server = await startMainServer();
    peer.idpCert = await idpCertificate(peer.server.url);
    peer.demoKey = (await demoSps(peer.server.url)).service_providers.find(
      (sp) => sp.id === 'demo-sp',
    )!.published_private_key_pem!;
  }, 30_000);
  beforeEach(() => clockToRealTime(peer.server.clock)());
  afterAll(() => peer.server.close());
  return peer;
}
