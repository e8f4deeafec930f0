import { authorizeAsPerson } from '../browser.ts';
import type { Http } from '../http.ts';
import {
  expectAnswer,
  expectEqual,
  ModelMismatch,
  transitionKey,
  unlessDestinationRefused,
  type MachineModel,
  type Step,
} from '../model.ts';
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
  state:
    'new' | 'running' | 'paused' | 'awaiting_user' | 'succeeded' | 'failed' | 'interrupted' | 'cancelled' | 'expired';
  /** awaiting_user: where the person signs in. */
  authorizationUrl?: string;
  runId?: string;
  flow: number;
  /** Step mode and targeted runs: the run's capability (a targeted run is read only with it). */
  runToken?: string;
}

const FINAL = new Set(['succeeded', 'failed', 'interrupted', 'cancelled', 'expired']);
/** The deployment's own OAuth server as a target, with the published demo client (decisions §3). */
const selfTarget = (http: Http, secret: string) => ({
  issuer: `${http.base}/oauth2`,
  client_id: 'machine-client',
  client_secret: secret,
  scope: 'api:read',
});
/** A run's token as the Authorization its reads carry (none for a public run without one). */
const bearer = (runToken: string | undefined): Record<string, string> =>
  runToken ? { authorization: `Bearer ${runToken}` } : {};
const POLL_MS = 50;
const POLL_LIMIT_MS = 30_000;

/** A run answers when it is done or still under way; a run under way is read again until it ends. */
async function settled(http: Http, runId: string, runToken?: string): Promise<Record<string, any>> {
  const deadline = Date.now() + POLL_LIMIT_MS;
  for (;;) {
    const answer = await http.call(`/api/runs/${runId}`, { headers: bearer(runToken) });
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

/** Step mode: a run paused before its first request, moved on with its token. */
const stepped: Step<FlowRunModelState>[] = [
  {
    name: 'start a stepped run',
    check: (m) => m.state === 'new',
    async run(m, { http }) {
      const answer = await http.call('/api/protocols/oauth2/demo/client-credentials', { json: { mode: 'step' } });
      expectAnswer('POST a stepped run', answer, 202);
      expectEqual('a stepped run starts', answer.body.status, 'paused');
      if (!answer.body.next_request?.url) throw new ModelMismatch('a paused run shows no next_request');
      m.runId = answer.body.run_id;
      m.runToken = answer.body.run_token;
      m.state = 'paused';
    },
  },
  ...(['step', 'continue', 'cancel'] as const).map((action): Step<FlowRunModelState> => ({
    name: action,
    check: (m) => m.runToken !== undefined,
    async run(m, { http }) {
      const answer = await http.call(`/api/runs/${m.runId}/${action}`, {
        json: {},
        headers: { authorization: `Bearer ${m.runToken}` },
      });
      // docs/flows.md: only a paused run moves; any other state is 409 naming it.
      if (m.state !== 'paused') return expectAnswer(`${action} a ${m.state} run`, answer, 409, 'invalid_request');
      expectAnswer(`POST /api/runs/{id}/${action}`, answer, 200);
      if (action === 'cancel') expectEqual('cancelled', answer.body.status, 'cancelled');
      if (action === 'continue') expectEqual('continued to the end', answer.body.status, 'succeeded');
      if (action === 'step' && !['paused', 'succeeded'].includes(answer.body.status))
        throw new ModelMismatch(`a step left the run ${answer.body.status}`);
      m.state = answer.body.status;
    },
  })),
  {
    name: 'step with another run token',
    check: (m) => m.runToken !== undefined,
    async run(m, { http }) {
      const answer = await http.call(`/api/runs/${m.runId}/step`, {
        json: {},
        headers: { authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAA' },
      });
      expectAnswer('a step without the run token', answer, 401, 'invalid_token');
    },
  },
];

/** Runs against a target: the deployment's own OAuth server, found by its metadata like any other. */
const targeted = (name: string, secret: (m: FlowRunModelState) => string, outcome: 'succeeded' | 'failed') => ({
  name,
  check: (m: FlowRunModelState) => m.state === 'new',
  async run(m: FlowRunModelState, { http }: Parameters<Step<FlowRunModelState>['run']>[1]) {
    const answer = await http.call('/api/protocols/oauth2/demo/client-credentials', {
      json: { target: selfTarget(http, secret(m)) },
    });
    unlessDestinationRefused('a run against this deployment', answer);
    expectAnswer('POST a run against a target', answer, 201);
    m.runId = answer.body.run_id;
    m.runToken = answer.body.run_token;
    expectEqual(`the run against ${http.base}/oauth2`, answer.body.status, outcome);
    const issuer = (answer.body.checks ?? []).find((c: { check: string }) => c.check === 'issuer match');
    expectEqual('issuer match', issuer?.verdict, 'passed');
    m.state = outcome;
  },
});

/** The person signs in at the deployment's own OAuth server and comes back to the waiting run. */
const signInAndComeBack: Step<FlowRunModelState> = {
  name: 'sign in at the target and come back',
  check: (m) => m.state === 'awaiting_user',
  async run(m, { http }) {
    const back = await authorizeAsPerson(http, m.authorizationUrl!);
    const callback = await http.call(back.href);
    expectAnswer('GET {base}/runs/callback', callback, 303);
    const done = await settled(http, m.runId!, m.runToken);
    expectEqual('the code flow against this deployment', done.status, 'succeeded');
    const failed = (done.checks ?? []).filter((c: { verdict: string }) => c.verdict === 'failed');
    expectEqual('failed checks', failed, []);
    m.state = 'succeeded';
  },
};

/** The code flow against the deployment's own OAuth server: the run waits for a person, who signs in and comes back. */
const codeFlowAgainstItself: Step<FlowRunModelState>[] = [
  {
    name: 'start the code flow against this deployment',
    check: (m) => m.state === 'new',
    async run(m, { http }) {
      const answer = await http.call('/api/protocols/oauth2/demo/authorization-code-pkce', {
        json: {
          target: {
            issuer: `${http.base}/oauth2`,
            client_id: 'demo-app',
            client_secret: 'demo-app-secret',
            scope: 'api:read',
          },
        },
      });
      unlessDestinationRefused('a code flow against this deployment', answer);
      expectAnswer('POST a code flow against a target', answer, 202);
      expectEqual('the run waits for a person', answer.body.status, 'awaiting_user');
      expectEqual('the redirect URI to register', answer.body.redirect_uri, `${http.base}/runs/callback`);
      m.runId = answer.body.run_id;
      m.runToken = answer.body.run_token;
      m.authorizationUrl = answer.body.authorization_url;
      m.state = 'awaiting_user';
    },
  },
  signInAndComeBack,
];

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
      const answer = await http.call(`/api/runs/${m.runId}`, { headers: bearer(m.runToken) });
      expectAnswer('GET /api/runs/{id}', answer, 200);
      expectEqual('run status', answer.body.status, m.state);
    },
  },
];

/** Flow runs (`/api/protocols/{id}/demo/{flow}`), read back through their stream export. */
export const flowRunModel: MachineModel<FlowRunModelState> = {
  machine: 'flowRun',
  unreachable: {
    [transitionKey('running', 'run.interrupted', 'interrupted')]:
      'needs the process stopped while the run is under way (the next start closes the run)',
    [transitionKey('paused', 'run.interrupted', 'interrupted')]:
      'needs the process stopped while the run is paused (the next start closes the run)',
    [transitionKey('paused', 'run.expired', 'expired')]: 'needs a run left paused for 10 minutes',
    [transitionKey('awaiting_user', 'run.expired', 'expired')]: 'needs a run left waiting for a person for 10 minutes',
    [transitionKey('awaiting_user', 'run.interrupted', 'interrupted')]:
      'needs the process stopped while the run waits for a person',
  },
  create: () => ({ state: 'new', flow: 0 }),
  // A run left waiting for a person counts toward the client's two targeted runs at once: end it.
  async finish(m, target) {
    if (m.state === 'awaiting_user') await signInAndComeBack.run(m, target);
  },
  steps: [
    ...FLOWS.map((_, i) => startRun(i)),
    ...stepped,
    targeted('run against this deployment as a target', () => 'machine-client-secret', 'succeeded'),
    targeted('run against this deployment with a wrong secret', () => 'not-the-secret', 'failed'),
    ...codeFlowAgainstItself,
    ...refusals,
  ],
  stepsFor(event, _guard, goal) {
    switch (event) {
      case 'run.started':
        if (goal.from === 'paused' || goal.to === 'paused') return ['start a stepped run'];
        if (goal.event === 'run.check_recorded') return ['run against this deployment as a target'];
        if (goal.to === 'failed') return ['run against this deployment with a wrong secret'];
        if (goal.from === 'awaiting_user' || goal.to === 'awaiting_user')
          return ['start the code flow against this deployment'];
        return [startRun(0).name];
      case 'run.exchange_recorded':
        return goal.event === 'run.exchange_recorded' ? [] : undefined;
      case 'run.paused':
      case 'run.finished':
      case 'run.check_recorded':
        return []; // the run's start takes it there by itself
      case 'run.stepped':
        return ['step'];
      case 'run.continued':
        return ['continue'];
      case 'run.cancelled':
        return ['cancel'];
      case 'run.awaiting_user':
        return [];
      case 'run.user_returned':
        return ['sign in at the target and come back'];
    }
    return undefined;
  },
  observe: (m, { http }) =>
    m.runId ? observeStream(http, `run:${m.runId}`, 'new', bearer(m.runToken)) : Promise.resolve(undefined),
};
