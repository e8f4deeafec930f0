import type { HttpTransport } from '../../services/flows/capture.ts';
import type { TargetDeps } from '../../services/flows/targets/waits.ts';
import type { FlowRunners } from '../../services/flows/registry.ts';
import type { GuardedHttp } from './guarded-http.ts';

/**
 * Flow runs against a user's own server (docs/flows.md): every request through the main origin's
 * outbound guard (redirects returned as they are, each runner follows its own), and the target's
 * issuer vetted before the run starts.
 */
/** The methods a targeted run sends (a SCIM server takes PUT, PATCH and DELETE too). */
const OUTBOUND_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function targetDeps(guard: GuardedHttp, runners: FlowRunners): TargetDeps {
  const transport: HttpTransport = async (url, init) => {
    const answer = await guard.send(url, {
      method: OUTBOUND_METHODS.find((m) => m === init.method) ?? 'GET',
      headers: init.headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
      followRedirects: init.redirect === 'follow',
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) headers.set(name, value);
    return { status: answer.status, headers, text: async () => answer.body.toString('utf8') };
  };
  return { transport, runners, admit: (url) => guard.vet(url) };
}
