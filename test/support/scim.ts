import { expect } from 'vitest';
import { ssfToken } from './ssf.ts';

export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export interface ScimAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/** A client_credentials token with scope `scim` of a demo client: that client's tenant. */
export const scimToken = (server: { url: string }, client = 'machine-client') => ssfToken(server, client, 'scim');

/** A small SCIM client of one tenant: each call sends `application/scim+json` and parses the answer. */
export function scimClient(base: string, token: string) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ScimAnswer> => {
    const res = await fetch(`${base}/scim/v2${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body: unknown, headers?: Record<string, string>) => call('POST', path, body, headers),
    put: (path: string, body: unknown, headers?: Record<string, string>) => call('PUT', path, body, headers),
    patch: (path: string, operations: unknown[], headers?: Record<string, string>) =>
      call('PATCH', path, { schemas: [PATCH_OP], Operations: operations }, headers),
    delete: (path: string, headers?: Record<string, string>) => call('DELETE', path, undefined, headers),
    /** A new user of this tenant: its id, after checking the 201. */
    async createUser(userName: string, extra: Record<string, unknown> = {}): Promise<any> {
      const created = await call('POST', '/Users', { schemas: [USER], userName, ...extra });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body;
    },
    /** Every user whose userName equals `name` (case-insensitively). */
    async userNamed(name: string): Promise<any> {
      const answer = await call('GET', `/Users?filter=${encodeURIComponent(`userName eq "${name}"`)}`);
      return answer.body.Resources[0];
    },
  };
}

/** The SCIM error shape and ours in one body (RFC 7644 §3.12, the spec's contract). */
export function expectScimError(answer: ScimAnswer, status: number, scimType?: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.headers.get('content-type')).toContain('application/scim+json');
  expect(answer.body.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
  expect(answer.body.status).toBe(String(status));
  expect(typeof answer.body.detail).toBe('string');
  expect(typeof answer.body.error).toBe('string');
  expect(answer.body.error_description).toBe(answer.body.detail);
  if (scimType) expect(answer.body.scimType).toBe(scimType);
}
