import { createLocalJWKSet, jwtVerify } from 'jose';
import { expect } from 'vitest';
import { eventBodyFault } from '../../services/ssf/event-types.ts';
import { exchange, form, json } from './main-server.ts';

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

/**
 * Polls a stream (acknowledging as it goes) until `count` SETs came, each verified with the origin's
 * keys and its body held to its event type's fields; then acknowledges the last and answers what is left.
 */
export async function pollVerified(
  server: { url: string },
  bearer: string,
  streamId: string,
  count: number,
  options: { returnImmediately?: boolean } = {},
): Promise<{ payloads: any[]; rest: string[] }> {
  const call = (body: unknown) =>
    exchange(server.url, `/ssf/poll/${streamId}`, json(body, { authorization: `Bearer ${bearer}` }));
  const jwks = createLocalJWKSet((await (await fetch(`${server.url}/oidc/jwks`)).json()) as never);
  const payloads: any[] = [];
  let ack: string[] = [];
  for (let round = 0; round < 40 && payloads.length < count; round++) {
    const sets = (await call({ ack, ...options })).body.sets as Record<string, string>;
    ack = Object.keys(sets);
    for (const set of Object.values(sets)) {
      const { payload } = await jwtVerify(set, jwks, {
        issuer: server.url,
        audience: 'machine-client',
        typ: 'secevent+jwt',
      });
      for (const [type, body] of Object.entries(payload.events as Record<string, unknown>))
        expect(eventBodyFault(type, body), type).toBeUndefined();
      payloads.push(payload);
    }
    if (options.returnImmediately && payloads.length < count) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const rest = (await call({ ack, returnImmediately: true })).body.sets as Record<string, string>;
  return { payloads, rest: Object.keys(rest) };
}
