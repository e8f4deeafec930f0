import type { Block } from '../../../services/pages/document.ts';
import { h, p } from './blocks.ts';

/**
 * A flow page's "Against your own server": the `target` member of a run, this deployment as a target that
 * always works, and how to reach a server on this machine (OUTBOUND_ALLOW_LOOPBACK, docs/flows.md).
 */
export function ownServerBlocks(protocol: string, flow: string, base: string): Block[] {
  // The published demo clients (decisions §3): a machine client for the grants without a person.
  const [clientId, secret] = /client-credentials|introspection/.test(flow)
    ? ['machine-client', 'machine-client-secret']
    : ['demo-app', 'demo-app-secret'];
  const body = JSON.stringify({
    target: { issuer: `${base}/oauth2`, client_id: clientId, client_secret: secret, scope: 'api:read' },
  });
  return [
    h(3, 'Against your own server'),
    p(
      'Add a ',
      { code: 'target' },
      " to the run: your authorization server's issuer and a client registered there (",
      { code: 'client_id' },
      ', ',
      { code: 'client_secret' },
      ', ',
      { code: 'scope' },
      ', ',
      { code: 'token_endpoint_auth_method' },
      '). Each of its answers is judged by named checks. Its start answers a run_token: the run is readable only with it.',
    ),
    p('This deployment itself is always a target, so this works as it is:'),
    {
      kind: 'code',
      lang: 'sh',
      text: `curl -s ${base}/api/protocols/${protocol}/demo/${flow} -H 'content-type: application/json' -d '${body}'`,
    },
    p(
      'A server on this machine (',
      { code: 'http://127.0.0.1:PORT' },
      ' or ',
      { code: 'http://localhost:PORT' },
      ') needs Portico started with ',
      { code: 'OUTBOUND_ALLOW_LOOPBACK=true' },
      ", a test hook; otherwise targets are https on public addresses (the repository's ",
      { code: 'docs/flows.md' },
      ' says more).',
    ),
  ];
}
