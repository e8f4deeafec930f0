import type { Http } from '../http.ts';
import { expectAnswer, expectEqual, ModelMismatch, transitionKey, type MachineModel, type Step } from '../model.ts';
import { observeStream } from '../streams.ts';

/** Flows every build can run against itself, each with options that change what it sends. */
const FLOWS: Array<{ path: string; options: Record<string, string> }> = [
  { path: 'oauth2/client-credentials', options: { scope: 'api:read api:write' } },
  { path: 'oauth2/client-credentials', options: { client_auth: 'private_key_jwt', alg: 'EdDSA' } },
  { path: 'oauth2/authorization-code-pkce', options: {} },
  { path: 'oauth2/refresh-token', options: {} },
  { path: 'oidc/authorization-code-id-token', options: {} },
];

export interface FlowRunModelState {
  state: 'new' | 'running' | 'succeeded' | 'failed' | 'interrupted';
  runId?: string;
  flow: number;
}

const FINAL = new Set(['succeeded', 'failed', 'interrupted']);
const POLL_MS = 50;
const POLL_LIMIT_MS = 30_000;

/** A run answers when it is done or still under way; a run under way is read again until it ends. */
async function settled(http: Http, runId: string): Promise<{ status: string; body: any }> {
  const deadline = Date.now() + POLL_LIMIT_MS;
  for (;;) {
    const answer = await http.call(`/api/runs/${runId}`);
    expectAnswer(`GET /api/runs/${runId}`, answer, 200);
    if (FINAL.has(answer.body.status) || Date.now() > deadline) return answer.body;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

const startRun = (index: number): Step<FlowRunModelState> => ({
  name: `run ${FLOWS[index]!.path}${Object.keys(FLOWS[index]!.options).length ? ` ${JSON.stringify(FLOWS[index]!.options)}` : ''}`,
  check: (m) => m.state === 'new',
  async run(m, { http }) {
    const flow = FLOWS[index]!;
    const [protocol, id] = flow.path.split('/');
    const answer = await http.call(`/api/protocols/${protocol}/demo/${id}`, { json: flow.options });
    expectAnswer(`POST /api/protocols/${flow.path}`, answer, 201);
    m.runId = answer.body.run_id;
    m.flow = index;
    const done = FINAL.has(answer.body.status) ? answer.body : await settled(http, m.runId!);
    // A healthy deployment answers every request the flow sends as the flow expects.
    expectEqual(`status of the ${flow.path} run`, done.status, 'succeeded');
    if (!Array.isArray(done.exchanges) || done.exchanges.length === 0)
      throw new ModelMismatch(`the ${flow.path} run captured no exchange`);
    m.state = 'succeeded';
  },
});

const refusals: Step<FlowRunModelState>[] = [
  {
    name: 'start an unknown flow',
    async run(_m, { http }) {
      const answer = await http.call('/api/protocols/oauth2/demo/no-such-flow', { json: {} });
      expectAnswer('an unknown flow', answer, 404, 'not_found');
    },
  },
  {
    name: 'start with an option outside its values',
    async run(_m, { http }) {
      const answer = await http.call('/api/protocols/oauth2/demo/client-credentials', {
        json: { client_auth: 'none-such' },
      });
      expectAnswer('an option outside its values', answer, 400, 'invalid_request');
    },
  },
  {
    name: 'read the run',
    check: (m) => m.runId !== undefined,
    async run(m, { http }) {
      const answer = await http.call(`/api/runs/${m.runId}`);
      expectAnswer('GET /api/runs/{id}', answer, 200);
      expectEqual('run status', answer.body.status, m.state);
    },
  },
];

/** Flow runs (`/api/protocols/{id}/demo/{flow}`), read back through their stream export. */
export const flowRunModel: MachineModel<FlowRunModelState> = {
  machine: 'flowRun',
  unreachable: {
    [transitionKey('running', 'run.finished', 'failed')]:
      'a flow fails only when the deployment answers what the flow does not expect; a healthy one never does',
    [transitionKey('running', 'run.interrupted', 'interrupted')]:
      'needs the process stopped while the run is under way (the next start closes the run)',
  },
  create: () => ({ state: 'new', flow: 0 }),
  steps: [...FLOWS.map((_, i) => startRun(i)), ...refusals],
  stepsFor: (event) =>
    event === 'run.started' || event === 'run.exchange_recorded' || event === 'run.finished'
      ? [startRun(0).name]
      : undefined,
  observe: (m, { http }) => (m.runId ? observeStream(http, `run:${m.runId}`, 'new') : Promise.resolve(undefined)),
};
