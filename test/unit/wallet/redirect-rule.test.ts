import { describe, expect, it } from 'vitest';
import { redirectUriRefusal } from '../../../services/wallet/presentation/rules.ts';

// Issue 19, behaviour 4: which post-presentation redirect_uri values the wallet exposes.
describe('the post-presentation redirect rule', () => {
  it.each([
    ['https://verifier.example/done?response_code=abc', undefined],
    ['https://203.0.113.7/done', 'an IP address in the reserved range'],
    ['https://8.8.8.8/done', undefined],
    ['http://verifier.example/done', 'not https'],
    ['https://user:pw@verifier.example/done', 'carries userinfo'],
    ['https://localhost/done', 'an internal host name'],
    ['https://app.localhost/done', 'an internal host name'],
    ['https://printer.local/done', 'an internal host name'],
    ['https://svc.internal/done', 'an internal host name'],
    ['https://127.0.0.1/done', 'an IP address in the loopback range'],
    ['https://10.0.0.8/done', 'an IP address in the private range'],
    ['https://169.254.169.254/latest', 'an IP address in the linkLocal range'],
    ['https://[::1]/done', 'an IP address in the loopback range'],
    ['https://[::ffff:10.0.0.1]/done', 'an IP address in the private range'],
    ['https://100.64.0.1/done', 'an IP address in the carrierGradeNat range'],
    ['javascript:alert(1)', 'not https'],
    ['not a url', 'not a URL'],
    [42, 'not a string'],
  ])('%s -> %s', (uri, refusal) => {
    expect(redirectUriRefusal(uri)).toBe(refusal);
  });
});
