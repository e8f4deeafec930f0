import type { HttpTransport } from '../../services/flows/capture.ts';
import type { TargetDeps } from '../../services/flows/runs.ts';
import type { FlowRunners } from '../../services/flows/registry.ts';
import { checkExternalUrl, vettedAddresses, type GuardedHttp, type Resolver } from './guarded-http.ts';
import { destinationNotAllowed } from '../../services/outbound.ts';
import { lookup } from 'node:dns/promises';

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Flow runs against a user's own server (docs/flows.md): every request through the main origin's
 * outbound guard (redirects returned as they are, each runner follows its own), and the target's
 * issuer vetted before the run starts.
 */
export function targetDeps(
  guard: GuardedHttp,
  runners: FlowRunners,
  options: { allowLoopback: boolean; resolver?: Resolver },
): TargetDeps {
  const transport: HttpTransport = async (url, init) => {
    const answer = await guard.send(url, {
      method: init.method === 'POST' ? 'POST' : 'GET',
      headers: init.headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
      followRedirects: init.redirect === 'follow',
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) headers.set(name, value);
    return { status: answer.status, headers, text: async () => answer.body.toString('utf8') };
  };
  return {
    transport,
    runners,
    async admit(issuer) {
      let url: URL;
      try {
        url = new URL(issuer);
      } catch {
        throw destinationNotAllowed('not an absolute URL');
      }
      checkExternalUrl(url, options.allowLoopback);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (!/^[\d.]+$/.test(host) && !host.includes(':'))
        await vettedAddresses(host, options.resolver ?? systemResolver, undefined, options.allowLoopback);
    },
  };
}
