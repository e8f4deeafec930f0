import { expect } from 'vitest';
import { exchange, form } from './main-server.ts';

/**
 * A client_credentials access token of `{base}/oauth2` for a demo client (scope `ssf` by default), the
 * Shared Signals management API's credential. demo-app-post authenticates in the body, the others with Basic.
 */
export async function ssfToken(server: { url: string }, client = 'machine-client', scope = 'ssf'): Promise<string> {
  const secret = `${client}-secret`;
  const answer = await exchange(
    server.url,
    '/oauth2/token',
    client === 'demo-app-post'
      ? form({ grant_type: 'client_credentials', scope, client_id: client, client_secret: secret })
      : form(
          { grant_type: 'client_credentials', scope },
          { authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}` },
        ),
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.access_token as string;
}
