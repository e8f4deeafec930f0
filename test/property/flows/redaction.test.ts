import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactor } from '../../../services/flows/redact.ts';

const redact = redactor(Buffer.alloc(32, 7));

// Issue 30 item 27: every secret a run can capture, under its name anywhere in a captured body, in a
// URL query or fragment, or inside an offer by value, never survives redaction whole.
const SECRET_NAMES = [
  'pre_authorized_code',
  'pre-authorized_code',
  'tx_code',
  'tx_code_value',
  'issuer_state',
  'response_code',
  'transaction_id',
  'notification_id',
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'code',
  'code_verifier',
  'password',
  'claim_token',
  // Issue 45 item 34: an offer id is shown to its creator alone, and so is its status token.
  'offer_id',
  'status_token',
];
const PUBLIC_NAMES = [
  'status_uri',
  'expires_in',
  'token_type',
  'token_endpoint',
  'state_note',
  'credential_issuer',
  'scope',
];

const secretValue = fc.stringMatching(/^[A-Za-z0-9_-]{12,40}$/);
const publicValue = fc.oneof(fc.stringMatching(/^[a-z ]{0,12}$/), fc.integer());
const tree = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    publicValue,
    fc.dictionary(fc.constantFrom(...PUBLIC_NAMES), tie('node'), { maxKeys: 3 }),
    fc.array(tie('node'), { maxLength: 3 }),
  ),
})).node;

/** Places a secret under `name` at a random depth of `body`, and returns what to search for. */
function plant(
  body: unknown,
  path: number[],
  name: string,
  secret: string,
  where: 'member' | 'query' | 'fragment' | 'offer',
): unknown {
  const leaf =
    where === 'member'
      ? { [name]: secret }
      : where === 'query'
        ? { link: `https://wallet.example/cb?${new URLSearchParams({ [name]: secret, other: 'x' })}` }
        : where === 'fragment'
          ? { link: `https://wallet.example/cb#${new URLSearchParams({ [name]: secret })}` }
          : {
              offer_url: `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify({ credential_issuer: 'https://i.example', grants: { g: { [name]: secret } } }))}`,
            };
  if (path.length === 0) return [body, leaf];
  return { inner: plant(body, path.slice(1), name, secret, where), sibling: body };
}

describe('redaction of run captures (property)', () => {
  it('no secret under a secret name survives, at any depth, as a member, a URL parameter or inside an offer by value', () => {
    fc.assert(
      fc.property(
        tree,
        fc.array(fc.nat(3), { maxLength: 4 }),
        fc.constantFrom(...SECRET_NAMES),
        secretValue,
        fc.constantFrom('member', 'query', 'fragment', 'offer') as fc.Arbitrary<
          'member' | 'query' | 'fragment' | 'offer'
        >,
        (body, path, name, secret, where) => {
          const out = JSON.stringify(redact(plant(body, path, name, secret, where)));
          expect(out).not.toContain(secret);
          expect(out).not.toContain(encodeURIComponent(secret));
          expect(out).toMatch(/redacted(\+|%20| )hmac/);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('public members stay readable', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PUBLIC_NAMES), fc.stringMatching(/^[a-z]{3,12}$/), (name, value) => {
        expect(redact({ [name]: value })).toEqual({ [name]: value });
      }),
    );
  });

  it('a result URL keeps its path but not its capability', () => {
    const out = redact({
      url: 'https://verifier.example/oid4vp/result/AAAAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBB?response_code=zzz',
    }) as { url: string };
    expect(out.url).toMatch(
      /^https:\/\/verifier\.example\/oid4vp\/result\/\[redacted hmac:[A-Za-z0-9_-]{22}\]\?response_code=/,
    );
    expect(out.url).not.toContain('BBBBBBBBBBBBBBBBBBBBBB');
    expect(out.url).not.toContain('zzz');
  });
});

describe('fingerprints are keyed (issue 45 item 35)', () => {
  it('a secret fingerprint is an HMAC under the server secret: no dictionary of bare hashes finds it', () => {
    const other = redactor(Buffer.alloc(32, 8));
    const secret = { client_secret: 'hunter2' };
    const here = (redact(secret) as { client_secret: string }).client_secret;
    expect(here).toMatch(/^\[redacted hmac:[A-Za-z0-9_-]{22}\]$/);
    expect(here).toBe((redact(secret) as { client_secret: string }).client_secret);
    expect(here).not.toBe((other(secret) as { client_secret: string }).client_secret);
    const bare = createHash('sha256').update('hunter2').digest('base64url');
    expect(here).not.toContain(bare.slice(0, 12));
  });
});

// Issue 49: a URL with nothing to redact comes back byte for byte, so a signed query (SAML's HTTP-Redirect
// binding signs the query as encoded) still verifies; an anchor in a parameter stays an anchor.
describe('URLs with nothing secret', () => {
  it('come back exactly as given, whatever the encoding of their values', () => {
    const value = fc.string({ maxLength: 30 }).map(encodeURIComponent);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('SAMLRequest', 'RelayState', 'SigAlg', 'Signature', 'x'), value), {
          maxLength: 6,
        }),
        (pairs) => {
          const url = `https://idp.example/sso?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`;
          expect(redact({ url })).toEqual({ url });
        },
      ),
    );
    const signed = `https://idp.example/sso?SAMLRequest=abc%2B%3D&SigAlg=${encodeURIComponent('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256')}&Signature=a%2Fb`;
    expect(redact({ url: signed })).toEqual({ url: signed });
  });
});
