import autocannon from 'autocannon';
import { rmSync } from 'node:fs';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { startChildServer } from '../support/child-server.ts';
import { opsPerSecond, type Bench } from './types.ts';

const BASIC = `Basic ${Buffer.from('machine-client:machine-client-secret').toString('base64')}`;

const bench: Bench = async () => {
  const server = await startChildServer();
  try {
    const token = (
      (await (
        await fetch(`${server.url}/oauth2/token`, {
          method: 'POST',
          headers: { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        })
      ).json()) as { access_token: string }
    ).access_token;
    const jwks = createLocalJWKSet((await (await fetch(`${server.url}/oauth2/jwks`)).json()) as never);
    const bare = await opsPerSecond(() => jwtVerify(token, jwks));
    const body = JSON.stringify({ token });
    const check = await fetch(`${server.url}/api/lookingglass/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (!((await check.json()) as { signature: { verified: boolean } }).signature.verified)
      throw new Error('the decode bench token did not verify');
    const http = await autocannon({
      url: `${server.url}/api/lookingglass/decode`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      connections: 16,
      duration: 5,
    });
    if (http.non2xx > 0) throw new Error(`${http.non2xx} decode requests failed`);
    return [
      { name: 'jose jwtVerify of an ES256 access token (in process)', value: bare, unit: 'ops/s' },
      {
        name: 'POST /api/lookingglass/decode, same token, verified (HTTP)',
        value: http.requests.average,
        unit: 'req/s',
        ratio: { against: 'bare jwtVerify', value: http.requests.average / bare, target: '>= 0.5' },
      },
    ];
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
};

export default bench;
