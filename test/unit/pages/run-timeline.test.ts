import { describe, expect, it } from 'vitest';
import { actorOf, curlOf, exchangeBlock } from '../../../adapters/http/pages/run-timeline.ts';

// Issue 14: the run page's pieces.
const exchange = {
  step: 'Token request',
  request: {
    method: 'POST',
    url: 'http://127.0.0.1:3000/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic x' },
    body: { grant_type: 'client_credentials', scope: "it's" },
  },
  response: { status: 200, headers: { 'content-type': 'application/json' }, body: { access_token: '[redacted]' } },
  duration_ms: 12,
  annotations: ['RFC 6749 §4.4'],
  tokens: [{ name: 'access_token', header: { alg: 'ES256' }, payload: { sub: 'service-client' } }],
};

describe('the run timeline', () => {
  it('names the part of the origin that answered', () => {
    expect(actorOf('http://h/oauth2/token')).toBe('OAuth AS');
    expect(actorOf('http://h/oidc/userinfo')).toBe('OpenID Provider');
    expect(actorOf('http://h/.well-known/openid-credential-issuer/oid4vci')).toBe('Credential issuer');
    expect(actorOf('http://h/elsewhere')).toBe('Origin');
    expect(actorOf('not a url')).toBe('Origin');
  });

  it('writes a curl command that a shell reads back exactly (form fields url-encoded, quotes escaped)', () => {
    expect(curlOf(exchange)).toBe(
      [
        "curl -i -X POST 'http://127.0.0.1:3000/oauth2/token'",
        "-H 'content-type: application/x-www-form-urlencoded'",
        "-H 'authorization: Basic x'",
        "--data-urlencode 'grant_type=client_credentials'",
        "--data-urlencode 'scope=it'\\''s'",
      ].join(' \\\n  '),
    );
  });

  it('renders a collapsible row (open when the status is an error) and an equivalent markdown twin', () => {
    const ok = exchangeBlock(exchange, 0);
    expect(ok.kind).toBe('html');
    if (ok.kind !== 'html') return;
    expect(ok.html).toMatch(/^<details class="exchange" id="exchange-1">/);
    expect(ok.html).toContain('<span class="badge status-ok">200</span>');
    expect(ok.markdown.map((b) => b.kind)).toEqual(['heading', 'paragraph', 'list', 'code', 'code', 'code']);
    const failed = exchangeBlock({ ...exchange, response: { ...exchange.response, status: 400 } }, 1);
    if (failed.kind === 'html') expect(failed.html).toMatch(/^<details class="exchange" id="exchange-2" open>/);
  });
});
