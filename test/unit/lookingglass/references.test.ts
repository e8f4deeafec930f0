import { describe, expect, it } from 'vitest';
import { referenceInlines } from '../../../services/lookingglass/references.ts';

// Issue 14: each claim's "Defined in" links to the section that defines it.
describe('claim references as links', () => {
  it.each([
    [
      'RFC 7519 §4.1.4',
      [{ link: 'RFC 7519 §4.1.4', href: 'https://www.rfc-editor.org/rfc/rfc7519.html#section-4.1.4' }],
    ],
    ['RFC 9068', [{ link: 'RFC 9068', href: 'https://www.rfc-editor.org/rfc/rfc9068.html' }]],
    [
      'OpenID4VP 1.0 §5.2, §14.1',
      [
        {
          link: 'OpenID4VP 1.0 §5.2',
          href: 'https://openid.net/specs/openid-4-verifiable-presentations-1_0.html#section-5.2',
        },
        ', ',
        { link: '§14.1', href: 'https://openid.net/specs/openid-4-verifiable-presentations-1_0.html#section-14.1' },
      ],
    ],
    [
      'OpenID4VCI 1.0 Appendix D',
      [
        {
          link: 'OpenID4VCI 1.0 Appendix D',
          href: 'https://openid.net/specs/openid-4-verifiable-credential-issuance-1_0.html#appendix-D',
        },
      ],
    ],
    ['Portico decisions §2', ['Portico decisions §2']],
  ])('%s', (reference, expected) => {
    expect(referenceInlines(reference)).toEqual(expected);
  });

  it('every reference the looking glass cites parses into at least one link or names our own documents', async () => {
    const { CLAIM_MEANINGS } = await import('../../../services/lookingglass/claim-meanings.ts');
    for (const { reference } of Object.values(CLAIM_MEANINGS)) {
      const inlines = referenceInlines(reference);
      expect(inlines.some((x) => typeof x === 'object') || /^Portico /.test(reference), reference).toBe(true);
    }
  });
});
