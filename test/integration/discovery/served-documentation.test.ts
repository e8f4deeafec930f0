import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

// Issue 30 items 29 and 30: the served documentation, as a new user met it.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let server: TestServer;
let wallet: TestWallet;
beforeAll(async () => {
  server = await startMainServer();
  wallet = await startWalletServer({ clock: server.clock, env: { BASE_URL: server.url } });
});
afterAll(async () => {
  await wallet.close();
  await server.close();
});

const markdown = async (base: string, path: string) =>
  (await fetch(`${base}${path}`, { headers: { accept: 'text/markdown' } })).text();
const text = async (base: string, path: string) => (await fetch(`${base}${path}`)).text();
type Operation = {
  summary?: string;
  description?: string;
  responses?: Record<string, unknown>;
  requestBody?: {
    content: Record<
      string,
      {
        example?: unknown;
        examples?: unknown;
        schema: {
          properties: Record<string, { description?: string; enum?: unknown[]; items?: { enum?: unknown[] } }>;
        };
      }
    >;
  };
};
const openapi = async () =>
  (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };

describe('served documentation (item 29)', () => {
  it('[item 29] /auth.md §3 shows approving a claim over the API', async () => {
    const guide = await text(server.url, '/auth.md');
    const section3 = guide.slice(guide.indexOf('## 3.'), guide.indexOf('## 4.'));
    expect(section3).toContain(`curl -s -X POST ${server.url}/agentauth/claim -d user_code=`);
    expect(section3).toContain('decision=approve');
  });

  it('[item 29] the OID4VP flow page lists its steps once', async () => {
    const page = await markdown(server.url, '/protocol/oid4vp/flow/dcql-direct-post-jwt');
    expect(page.match(/\*\*Encrypted response\*\*/g)).toHaveLength(1);
    expect(page.match(/^\d\. \*\*/gm)).toHaveLength(6);
  });

  it('[item 29] the looking glass documents GET ?token= as well as POST, and says its samples are expired on purpose', async () => {
    const page = await markdown(server.url, '/looking-glass');
    expect(page).toContain('GET /looking-glass?token=');
    expect(page).toContain('POST /looking-glass');
    expect(page).toContain('expired on purpose');
    expect(await (await fetch(`${server.url}/looking-glass`)).text()).toContain('expired on purpose');
  });

  it('[item 29] "request_id" is told apart: the wallet\'s req_… and the verifier\'s', async () => {
    const recipes = await text(wallet.url, '/llms-full.txt');
    expect(recipes).toMatch(/request_id \(req\\?_…\)[^\n]*not the verifier/);
    const skill = await text(wallet.url, '/.well-known/agent-skills/use-wallet-harness/SKILL.md');
    expect(skill).toMatch(
      /`request_id` that resolve answered \(the wallet's own `req_…` id[^)]*not the verifier's request id\)/,
    );
    expect(await markdown(server.url, '/protocol/oid4vp')).toMatch(/`request_id` is the verifier's id[^)]*`req_…` ids/);
  });

  it("[item 29] the run-protocol-flow skill names the credential flows, and /api/protocols/{id}/flows lists each flow's options", async () => {
    const skill = await text(server.url, '/.well-known/agent-skills/run-protocol-flow/SKILL.md');
    for (const flow of [
      'oid4vci/pre-authorized-code',
      'oid4vp/dcql-direct-post',
      'oauth2/client-credentials',
      'agentauth/register-and-claim',
    ])
      expect(skill).toContain(flow);
    const flows = (await (await fetch(`${server.url}/api/protocols/oid4vci/flows`)).json()) as {
      flows: Array<{
        id: string;
        options: Array<{ name: string; values?: string[]; default: string; description: string }>;
      }>;
    };
    const pre = flows.flows.find((f) => f.id === 'pre-authorized-code')!;
    expect(pre.options).toEqual([
      expect.objectContaining({
        name: 'credential_configuration_id',
        default: 'UniversityDegreeCredential',
        values: expect.arrayContaining(['MobileDrivingLicenceMsoMdoc']),
        description: expect.any(String),
      }),
    ]);
    const discovery = (await (await fetch(`${server.url}/api/protocols/oidc/flows`)).json()) as {
      flows: Array<{ options: unknown[] }>;
    };
    for (const f of discovery.flows) expect(f.options).toEqual([]);
  });

  it('[item 29] OpenAPI documents the run form post as 303, and /docs/api shows no literal backticks', async () => {
    const run = (await openapi()).paths['/protocol/{id}/flow/{flow}/run'].post;
    expect(Object.keys(run.responses ?? {})).toContain('303');
    expect(Object.keys(run.responses ?? {})).not.toContain('200');
    const reference = await text(server.url, '/docs/api');
    const visible = reference.replace(/<[^>]+>/g, '');
    expect(visible).not.toContain('`');
    expect(reference).toContain('<code>token</code>');
  });

  it('[item 29] the README names the decentralized_identifier prefix as the API does', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const row = readme.split('\n').find((line) => line.startsWith('| OID4VP verifier'))!;
    expect(row).toContain('decentralized_identifier');
    expect(row).not.toMatch(/verifier_attestation, did:jwk\)/);
  });

  it('[item 29] the run page prints durations with at most two decimals', async () => {
    const run = (await exchange(server.url, '/api/protocols/oauth2/demo/client-credentials', json({}))).body;
    for (const body of [
      await markdown(server.url, `/runs/${run.run_id}`),
      await text(server.url, `/runs/${run.run_id}`),
    ]) {
      expect(body).toMatch(/\d ms/);
      expect(body).not.toMatch(/\d\.\d{3,} ms/);
    }
  });

  it('[item 29] npm run replay on a directory prints one clear line, no stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-dir-'));
    try {
      const result = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/replay.ts'), dir], {
        encoding: 'utf8',
        cwd: ROOT,
      });
      expect(result.status).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain('is a directory');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('where offers and presentation requests come from (item 30)', () => {
  it("[item 30] /llms.txt, the wallet's llms.txt and its recipes name both creation calls", async () => {
    const llms = await text(server.url, '/llms.txt');
    expect(llms).toContain(`POST ${server.url}/oid4vci/offers`);
    expect(llms).toContain(`POST ${server.url}/oid4vp/request/create`);
    for (const path of ['/llms.txt', '/llms-full.txt']) {
      const doc = await text(wallet.url, path);
      expect(doc, path).toContain(`${server.url}`);
      expect(doc, path).toContain('/oid4vci/offers');
      expect(doc, path).toContain('/oid4vp/request/create');
    }
  });

  it('[item 30] OpenAPI describes every member of both creation bodies, with allowed values, examples and a worked example', async () => {
    const spec = await openapi();
    for (const [path, enums] of [
      ['/oid4vci/offers', ['grant', 'user', 'credential_configuration_ids']],
      [
        '/oid4vp/request/create',
        [
          'client_id_prefix',
          'response_mode',
          'request_uri_method',
          'profile',
          'encrypted_response_enc_values_supported',
        ],
      ],
    ] as const) {
      const op = spec.paths[path].post;
      expect(op.description, path).toMatch(/^Worked example/);
      const media = op.requestBody!.content['application/json'];
      const schema = media.schema;
      expect(media.example ?? media.examples, path).toBeTruthy();
      for (const [name, member] of Object.entries(schema.properties))
        expect(member.description, `${path} ${name}`).toBeTruthy();
      for (const name of enums)
        expect(schema.properties[name].enum ?? schema.properties[name].items?.enum, `${path} ${name}`).toBeTruthy();
      const createdMedia = (
        op.responses as Record<
          string,
          {
            content: Record<
              string,
              {
                example?: unknown;
                examples?: unknown;
                schema: { properties: Record<string, { description?: string }> };
              }
            >;
          }
        >
      )['201'].content['application/json'];
      const created = createdMedia.schema;
      expect(createdMedia.example ?? createdMedia.examples, path).toBeTruthy();
      for (const [name, member] of Object.entries(created.properties))
        expect(member.description, `${path} 201 ${name}`).toBeTruthy();
    }
    expect(spec.paths['/oid4vp/request/create'].post.responses!['201']).toBeDefined();
  });

  it('[item 30] the worked examples work: the documented offer and request bodies are accepted as written', async () => {
    const offer = await exchange(
      server.url,
      '/oid4vci/offers',
      json({ credential_configuration_ids: ['UniversityDegreeCredential'], tx_code: true }),
    );
    expect(offer.status).toBe(201);
    const imported = await fetch(`${wallet.url}/api/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-session': 'docs' },
      body: JSON.stringify({ offer: offer.body.offer_url, tx_code: offer.body.tx_code_value }),
    });
    expect(imported.status).toBe(200);
    const request = await exchange(
      server.url,
      '/oid4vp/request/create',
      json({ dcql_query: { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] } }),
    );
    expect(request.status).toBe(201);
    const submitted = await fetch(`${wallet.url}/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-session': 'docs' },
      body: JSON.stringify({ uri: request.body.authorization_request_uri }),
    });
    expect(submitted.status).toBe(200);
    expect((await (await fetch(request.body.result_uri)).json()).status).toBe('verified');
  });
});
