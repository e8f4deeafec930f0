import type { RecordedExchange } from '../../machines/flow-run.ts';
import { htmlPage } from '../../adapters/http/pages/respond.ts';
import { runPage } from '../../adapters/http/pages/run-timeline.ts';
import type { RunView } from '../../services/flows/runs.ts';
import { renderMarkdown } from '../../services/pages/render-markdown.ts';
import { opsPerSecond, type Bench } from './types.ts';

/** A run of 30 exchanges shaped like the real ones: headers, JSON bodies, a decoded token every third. */
function run(exchanges: number): RunView {
  const token = {
    name: 'access_token',
    header: { alg: 'ES256', typ: 'at+jwt', kid: 'k'.repeat(43) },
    payload: {
      iss: 'http://localhost:3000/oauth2',
      sub: 'alice',
      aud: 'http://localhost:3000/oauth2/resource',
      iat: 1795545885,
      exp: 1795549485,
      jti: 'j'.repeat(22),
      scope: 'openid profile email',
    },
  };
  const one = (i: number): RecordedExchange => ({
    step: `Step ${i + 1}`,
    request: {
      method: i % 2 ? 'POST' : 'GET',
      url: `http://localhost:3000/oauth2/${i % 2 ? 'token' : 'authorize'}?client_id=demo-app&state=${'s'.repeat(22)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: '[redacted sha256:abcdef]' },
      body: {
        grant_type: 'authorization_code',
        code: '[redacted sha256:0123]',
        redirect_uri: 'http://localhost:3000/callback',
        code_verifier: '[redacted sha256:4567]',
      },
    },
    response: {
      status: i === 7 ? 400 : 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
      body: {
        access_token: '[redacted sha256:89ab]',
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'openid profile email',
      },
    },
    duration_ms: 5 + (i % 9),
    annotations: ['RFC 6749 §4.1.3'],
    ...(i % 3 === 0 ? { tokens: [token] } : {}),
  });
  return {
    run_id: 'run_bench',
    protocol: 'oauth2',
    flow: 'authorization-code',
    status: 'succeeded',
    started_at: '2026-11-24T18:00:00.000Z',
    steps: [],
    exchanges: Array.from({ length: exchanges }, (_, i) => one(i)),
    tokens: [],
    machine: [
      { sequence: 1, event: 'run.started', state: 'running' },
      ...Array.from({ length: exchanges }, (_, i) => ({
        sequence: i + 2,
        event: 'run.exchange_recorded',
        state: 'running',
      })),
      { sequence: exchanges + 2, event: 'run.finished', state: 'succeeded' },
    ],
  };
}

/** The run page of 30 exchanges, rendered as the server renders it (document, then HTML; and the markdown twin). */
const bench: Bench = async () => {
  const view = run(30);
  const html = await opsPerSecond(() => htmlPage(runPage(view)), 1500);
  const markdown = await opsPerSecond(() => renderMarkdown(runPage(view)), 1500);
  return [
    {
      name: 'run page, 30 exchanges: document + HTML',
      value: 1000 / html,
      unit: 'ms',
      note: `target < 50 ms (${Math.round(htmlPage(runPage(view)).length / 1024)} KiB of HTML)`,
    },
    { name: 'run page, 30 exchanges: document + markdown twin', value: 1000 / markdown, unit: 'ms' },
  ];
};

export default bench;
