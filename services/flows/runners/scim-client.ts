import type { RunContext } from '../registry.ts';
import { machineToken } from './oauth-helpers.ts';
import { randomToken } from '../../crypto/random.ts';

/** A SCIM service provider a run talks to: its base URL (`.../scim/v2`) and a bearer token it takes. */
export interface ScimEndpoint {
  base: string;
  token: string;
}

export const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const SCIM_PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SCIM_BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';

/** Our own service provider, with a client_credentials token of the demo machine client (scope `scim`). */
export async function ownScimEndpoint(run: RunContext): Promise<ScimEndpoint> {
  const token = await machineToken(
    run,
    'scim',
    'Token for the SCIM service provider',
    'RFC 6749 §4.4: client_credentials; scope scim gives this client its own SCIM tenant (docs/scim.md)',
  );
  return { base: `${run.base}/scim/v2`, token };
}

export type ScimCall = ReturnType<typeof scimCaller>;

/** An answer of a SCIM server, its body not trusted to have any shape. */
export interface ScimAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Requests to one service provider, each recorded by the run: the token as Bearer, bodies as `application/scim+json`. */
export function scimCaller(run: RunContext, endpoint: ScimEndpoint) {
  return async (
    step: string,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; notes?: string[] } = {},
  ): Promise<ScimAnswer> => {
    const answer = await run.http.send(
      step,
      path.startsWith('http') ? path : `${endpoint.base}${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${endpoint.token}`,
          accept: 'application/scim+json',
          ...(options.body !== undefined ? { 'content-type': 'application/scim+json' } : {}),
          ...options.headers,
        },
        ...(options.body !== undefined ? { json: options.body } : {}),
      },
      options.notes ?? [],
    );
    const body: unknown = answer.body;
    return { status: answer.status, headers: answer.headers, body };
  };
}

/** A PATCH request body (RFC 7644 §3.5.2). */
export const patchOf = (...Operations: unknown[]) => ({ schemas: [SCIM_PATCH], Operations });

/** A user name unique to this run, so runs never collide in one tenant. */
export const runUserName = (label: string) => `${label}.${randomToken(6).toLowerCase()}`;
