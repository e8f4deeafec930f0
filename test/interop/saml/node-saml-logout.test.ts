import { SAML } from '@node-saml/node-saml';
import { DEMO_SLO, nodeSamlDemoSp } from '../../support/node-saml.ts';
import { describe, expect, it } from 'vitest';
import { SamlBrowser, useSamlPeerServer } from '../../support/saml.ts';

const peer = useSamlPeerServer();
const SLO = DEMO_SLO;

const nodeSaml = (sp: 'demo-sp' | 'demo-sp-strict') => nodeSamlDemoSp(peer, sp);

/** Signs the browser in at both demo SPs; answers their node-saml instances and profiles. */
async function signedInTwice(browser: SamlBrowser) {
  const first = nodeSaml('demo-sp');
  const second = nodeSaml('demo-sp-strict');
  const profiles = [];
  for (const sp of [first, second]) {
    const form = await browser.responseForm(
      await browser.sso({ url: await sp.getAuthorizeUrlAsync('', undefined, {}) }),
    );
    profiles.push((await sp.validatePostResponseAsync({ SAMLResponse: form.fields.SAMLResponse })).profile!);
  }
  return { first, second, profiles };
}

const queryOf = (url: string) => {
  const raw = url.slice(url.indexOf('?') + 1);
  return { raw, parsed: Object.fromEntries(new URLSearchParams(raw)) };
};
const decoded = async (url: string) => {
  const { inflateRawSync } = await import('node:zlib');
  return inflateRawSync(Buffer.from(new URL(url).searchParams.get('SAMLResponse')!, 'base64')).toString();
};

describe('single logout with @node-saml/node-saml as the SPs', () => {
  it('[saml-profiles-003] propagates an SP’s LogoutRequest to the other SP of the session, then answers Success over HTTP-Redirect', async () => {
    const browser = new SamlBrowser(peer.server.url, 'alice');
    const { first, second, profiles } = await signedInTwice(browser);
    const start = await browser.fetch(await first.getLogoutUrlAsync(profiles[0], 'relay-out', {}));
    expect(start.status).toBe(303);
    const toSecond = start.headers.get('location')!;
    expect(toSecond.startsWith(`${SLO}?SAMLRequest=`)).toBe(true);
    const request = queryOf(toSecond);
    const { loggedOut, profile } = await second.validateRedirectAsync(request.parsed, request.raw);
    expect(loggedOut).toBe(true);
    expect(profile?.nameID).toBe(profiles[1].nameID);
    const back = await browser.fetch(await second.getLogoutResponseUrlAsync(profile!, '', {}, true));
    expect(back.status).toBe(303);
    const final = back.headers.get('location')!;
    expect(final.startsWith(`${SLO}?SAMLResponse=`)).toBe(true);
    expect(new URL(final).searchParams.get('RelayState')).toBe('relay-out');
    expect(await decoded(final)).not.toContain('PartialLogout');
    const answer = queryOf(final);
    expect((await first.validateRedirectAsync(answer.parsed, answer.raw)).loggedOut).toBe(true);
    // The session is over: the next request asks for a login again.
    const again = await browser.fetch(await first.getAuthorizeUrlAsync('', undefined, {}));
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toContain('/saml/idp/login/');
  });

  it('[saml-core-003] answers Success with PartialLogout when another SP fails, or never answers', async () => {
    const browser = new SamlBrowser(peer.server.url, 'bob');
    const { first, second, profiles } = await signedInTwice(browser);
    const start = await browser.fetch(await first.getLogoutUrlAsync(profiles[0], '', {}));
    const request = queryOf(start.headers.get('location')!);
    const { profile } = await second.validateRedirectAsync(request.parsed, request.raw);
    const back = await browser.fetch(await second.getLogoutResponseUrlAsync(profile!, '', {}, false));
    const final = await decoded(back.headers.get('location')!);
    expect(final).toContain('urn:oasis:names:tc:SAML:2.0:status:Success');
    expect(final).toContain('urn:oasis:names:tc:SAML:2.0:status:PartialLogout');

    // At the IdP: the second SP never comes back; the person skips it.
    const other = new SamlBrowser(peer.server.url, 'alice');
    await signedInTwice(other);
    const out = await other.fetch(`${peer.server.url}/saml/idp/logout`, { method: 'POST' });
    expect(out.status).toBe(303);
    const skipped = await other.fetch(`${peer.server.url}/saml/idp/logout/skip`, { method: 'POST' });
    const skippedAgain =
      skipped.status === 303
        ? await other.fetch(`${peer.server.url}/saml/idp/logout/skip`, { method: 'POST' })
        : skipped;
    const page = await skippedAgain.text();
    expect(skippedAgain.status).toBe(200);
    expect(page).toContain('Partial logout');
  });

  it('[saml-profiles-004] refuses an unsigned LogoutRequest, and one naming another principal', async () => {
    const browser = new SamlBrowser(peer.server.url, 'alice');
    const { profiles } = await signedInTwice(browser);
    const unsigned = new SAML({ ...nodeSaml('demo-sp').options, privateKey: undefined } as never);
    const refused = await browser.fetch(await unsigned.getLogoutUrlAsync(profiles[0], '', {}));
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('message_signature');
    const stranger = await browser.fetch(
      await nodeSaml('demo-sp').getLogoutUrlAsync({ ...profiles[0], nameID: 'someone@example.com' }, '', {}),
    );
    expect(stranger.status).toBe(303);
    expect(await decoded(stranger.headers.get('location')!)).toContain(
      'urn:oasis:names:tc:SAML:2.0:status:UnknownPrincipal',
    );
  });
});
