import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { generateKeyPair, SignJWT } from 'jose';
import { freePort, startChildServer } from '../support/child-server.ts';
import { opsPerSecond, type Bench } from './types.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const BASIC = `Basic ${Buffer.from('machine-client:machine-client-secret').toString('base64')}`;

async function clientCredentialsRate(url: string): Promise<number> {
  const check = await fetch(url, {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=api%3Aread',
  });
  if (check.status !== 200) throw new Error(`${url}: ${check.status} ${await check.text()}`);
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=api%3Aread',
    connections: 16,
    duration: 6,
  });
  if (result.non2xx > 0) throw new Error(`${url}: ${result.non2xx} non-2xx responses`);
  return result.requests.average;
}

async function startOidcProvider(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/bench/support/oidc-provider-server.ts', String(port)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => ((out += d), out.includes('listening') && resolve()));
    child.stderr!.on('data', (d: Buffer) => (out += d));
    child.once('exit', (code) => reject(new Error(`oidc-provider exited (${code}): ${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/token`,
    stop: () =>
      new Promise((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

const bench: Bench = async () => {
  const ours = await startChildServer();
  const theirs = await startOidcProvider();
  try {
    const oursRate = await clientCredentialsRate(`${ours.url}/oauth2/token`);
    const theirRate = await clientCredentialsRate(theirs.url);
    const es = await generateKeyPair('ES256');
    const rs = await generateKeyPair('RS256');
    const claims = {
      iss: 'https://issuer.example',
      sub: 'alice',
      aud: 'client',
      scope: 'openid profile',
      jti: 'x'.repeat(22),
    };
    const es256 = await opsPerSecond(() =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' })
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(es.privateKey),
    );
    const rs256 = await opsPerSecond(() =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(rs.privateKey),
    );
    return [
      {
        name: 'client_credentials at /oauth2/token (ours, JWT ES256)',
        value: oursRate,
        unit: 'req/s',
        ratio: { against: 'oidc-provider', value: oursRate / theirRate, target: '>= 2.0' },
      },
      { name: 'client_credentials at oidc-provider (JWT ES256)', value: theirRate, unit: 'req/s' },
      { name: 'access-token signing cost (ES256, at+jwt)', value: 1e6 / es256, unit: 'µs/token' },
      { name: 'ID-token signing cost (RS256)', value: 1e6 / rs256, unit: 'µs/token' },
    ];
  } finally {
    await ours.stop();
    await theirs.stop();
    rmSync(ours.dataDir, { recursive: true, force: true });
  }
};

export default bench;
