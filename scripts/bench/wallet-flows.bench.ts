import { rmSync } from 'node:fs';
import { Agent, request } from 'undici';
import { flowsPerSecond as directIssuance } from './issuer.bench.ts';
import { startChildServer, startWalletBeside } from '../support/child-server.ts';
import { concurrentFlows, type Bench } from './types.ts';
import { QUERIES } from './support/presentation-flow.ts';

const CONCURRENCY = 8;
const DURATION_MS = 5_000;

/**
 * The wallet's end-to-end flows with the main origin and the wallet each in its own process:
 * `/api/issue` (forced, so every call is a full pre-authorized issuance with the wallet's discovery,
 * trust checks, batch proofs, credential verification and notification) beside the issuer's direct
 * figure from the issuer bench, so the gap is the wallet's overhead; and `/submit` against our
 * verifier with `direct_post.jwt` (request object fetched and verified, DCQL matched, presentation
 * built and encrypted, verdict read back).
 */
const bench: Bench = async () => {
  const main = await startChildServer();
  const agent = new Agent({ connections: CONCURRENCY * 2 });
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown, session?: string) => {
    const res = await request(url, {
      method,
      dispatcher: agent,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(session ? { 'x-wallet-session': session } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = (await res.body.json()) as Record<string, any>;
    if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${JSON.stringify(parsed).slice(0, 300)}`);
    return parsed;
  };
  const wallet = await startWalletBeside(main.url, { WALLET_SESSION_TTL: '1h' });
  try {
    const rows = [];
    let sessions = 0;
    for (const [label, configuration] of [
      ['SD-JWT VC', 'UniversityDegreeCredential'],
      ['mdoc', 'MobileDrivingLicenceMsoMdoc'],
    ] as const) {
      const direct = await directIssuance(main.url, configuration);
      // A fresh session per flow, so no store grows over the run.
      const { done, seconds } = await concurrentFlows(
        () =>
          call(
            'POST',
            `${wallet.url}/api/issue`,
            { credential_configuration_id: configuration, force: true },
            `bench-issue-${++sessions}`,
          ),
        CONCURRENCY,
        DURATION_MS,
      );
      rows.push(
        { name: `issuer direct (bench client), ${label}`, value: direct, unit: 'flows/s' },
        {
          name: `wallet /api/issue end to end, ${label}`,
          value: done / seconds,
          unit: 'flows/s',
          ratio: { against: 'issuer direct', value: done / seconds / direct },
        },
      );
    }
    for (const [label, dcql_query] of Object.entries(QUERIES)) {
      let worker = 0;
      const submit = async () => {
        // One session per concurrent slot: the first /submit auto-issues, the rest present from the store.
        const session = `bench-submit-${label.replace(/\W/g, '')}-${worker++ % CONCURRENCY}`;
        const created = await call('POST', `${main.url}/oid4vp/request/create`, {
          response_mode: 'direct_post.jwt',
          dcql_query,
        });
        await call('POST', `${wallet.url}/submit`, { uri: created.authorization_request_uri }, session);
        const verdict = await call('GET', created.result_uri);
        if (verdict.status !== 'verified') throw new Error(`not verified: ${JSON.stringify(verdict).slice(0, 300)}`);
      };
      const { done, seconds } = await concurrentFlows(submit, CONCURRENCY, DURATION_MS);
      rows.push({
        name: `wallet /submit + verdict, ${label}, direct_post.jwt`,
        value: done / seconds,
        unit: 'flows/s',
      });
    }
    return rows;
  } finally {
    await agent.close();
    await wallet.stop();
    await main.stop();
    rmSync(main.dataDir, { recursive: true, force: true });
    rmSync(wallet.dataDir, { recursive: true, force: true });
  }
};
export default bench;
