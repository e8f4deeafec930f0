import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oauthError, OAuthError } from '../../../services/errors.ts';
import { TokenEndpoint } from '../../../services/oauth/token/endpoint.ts';
import { GrantTable } from '../../../services/oauth/token/grant-table.ts';

// Issue 37: one token endpoint; each authorization server only configures it. The checks run in one
// order everywhere: grant_type present, client authenticated, DPoP proof, grant supported, grant allowed.
type Request = { client?: string; dpop?: boolean };
const steps: string[] = [];
const endpoint = new TokenEndpoint<
  Request,
  string,
  { client: string; jkt?: string },
  { grant: string; client: string }
>({
  grants: new GrantTable([
    ['a', async (ctx) => ({ grant: 'a', client: ctx.client, ...(ctx.jkt ? { jkt: ctx.jkt } : {}) })],
    ['b', async (ctx) => ({ grant: 'b', client: ctx.client })],
  ]),
  authenticateClient: async (request) => {
    steps.push('client');
    if (!request.client) throw oauthError('invalid_client', 'no client');
    return request.client;
  },
  checkProof: async (request) => {
    steps.push('proof');
    if (request.dpop === false) throw oauthError('invalid_dpop_proof', 'bad proof');
    return request.dpop ? ({ jkt: 'thumb' } as never) : undefined;
  },
  mayUseGrant: (client, grantType) => client !== 'only-a' || grantType === 'a',
  context: ({ client, proof }) => ({ client, ...(proof ? { jkt: (proof as { jkt: string }).jkt } : {}) }),
});
const outcome = async (form: Record<string, string>, request: Request) => {
  steps.length = 0;
  try {
    return { ok: await endpoint.handle(form, request), steps: [...steps] };
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthError);
    return { error: (error as OAuthError).error, steps: [...steps] };
  }
};

describe('the core token endpoint (RFC 6749 §3.2, §5.2)', () => {
  it('answers with the grant handler, given the authenticated client and the proof', async () => {
    expect(await outcome({ grant_type: 'a' }, { client: 'c', dpop: true })).toEqual({
      ok: { grant: 'a', client: 'c', jkt: 'thumb' },
      steps: ['client', 'proof'],
    });
  });

  it('refuses in one order: grant_type, client, proof, supported grant, allowed grant', async () => {
    expect(await outcome({}, { client: 'c' })).toEqual({ error: 'invalid_request', steps: [] });
    expect(await outcome({ grant_type: 'zzz' }, {})).toEqual({ error: 'invalid_client', steps: ['client'] });
    expect(await outcome({ grant_type: 'zzz' }, { client: 'c', dpop: false })).toEqual({
      error: 'invalid_dpop_proof',
      steps: ['client', 'proof'],
    });
    expect(await outcome({ grant_type: 'zzz' }, { client: 'c' })).toMatchObject({ error: 'unsupported_grant_type' });
    expect(await outcome({ grant_type: 'b' }, { client: 'only-a' })).toMatchObject({ error: 'unauthorized_client' });
  });

  it('never answers a grant_type outside its table, whatever its name', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1 }), async (grantType) => {
        const result = await outcome({ grant_type: grantType }, { client: 'c' });
        if (grantType === 'a' || grantType === 'b') expect(result.ok?.grant).toBe(grantType);
        else expect(result.error).toBe('unsupported_grant_type');
      }),
    );
  });
});
