import { createServer, type Server } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_FETCH_LIMITS } from '../../../adapters/outbound/document-guard.ts';
import { GuardedHttp } from '../../../adapters/outbound/guarded-http.ts';
import { ManualClock } from '../../../services/clock.ts';
import {
  ClientMetadataDocuments,
  DOCUMENT_CACHE_CEILING_S,
  DOCUMENT_CACHE_FLOOR_S,
  cacheSeconds,
} from '../../../services/oauth/clients/metadata-document.ts';
import { checkResource, tokenResource } from '../../../services/oauth/resources.ts';

let hanging: Server;
let port: number;
beforeAll(async () => {
  hanging = createServer(() => undefined); // accepts, never answers
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  port = (hanging.address() as { port: number }).port;
});
afterAll(async () => {
  hanging.closeAllConnections();
  await new Promise((resolve) => hanging.close(resolve));
});

describe('client metadata documents', () => {
  it('are fetched within 5 s, at most 5 KiB, and no redirect', () => {
    expect(DOCUMENT_FETCH_LIMITS).toEqual({ timeoutMs: 5000, maxBytes: 5120, maxRedirects: 0 });
  });

  it('a document that does not come in time is invalid_client, saying so', async () => {
    // The same guard with a short deadline, so the test does not wait five seconds.
    const guard = new GuardedHttp({
      trustedOrigins: new Set(),
      allowExternal: true,
      allowLoopback: true,
      ...DOCUMENT_FETCH_LIMITS,
      timeoutMs: 200,
    });
    const documents = new ClientMetadataDocuments(guard, new ManualClock(0));
    await expect(documents.client(`http://127.0.0.1:${port}/client.json`)).rejects.toMatchObject({
      error: 'invalid_client',
      description: expect.stringMatching(/could not be fetched: no answer within 0\.2 s/),
    });
    await guard.close();
  });

  it('are kept for their max-age, clamped between the floor and the ceiling', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), (maxAge) => {
        const kept = cacheSeconds(`public, max-age=${maxAge}`);
        expect(kept).toBe(Math.min(DOCUMENT_CACHE_CEILING_S, Math.max(DOCUMENT_CACHE_FLOOR_S, maxAge)));
      }),
    );
    expect(cacheSeconds(undefined)).toBe(300);
    expect(cacheSeconds('no-store')).toBe(300);
  });
});

describe('resource indicators (RFC 8707)', () => {
  const known = ['https://as.example/mcp/user', 'https://as.example/oauth2/resource'];
  it('take only a known absolute URI without fragment, one per request', () => {
    expect(checkResource(undefined, known)).toBeUndefined();
    expect(checkResource(known[0], known)).toBe(known[0]);
    for (const bad of ['mcp/user', 'https://as.example/mcp/user#x', 'https://other.example/', [known[0], known[1]]])
      expect(() => checkResource(bad, known), JSON.stringify(bad)).toThrow(/resource|one resource/i);
  });
  it('at the token endpoint, repeat the authorized resource or name none, never another', () => {
    expect(tokenResource(undefined, known[0], known)).toBe(known[0]);
    expect(tokenResource(known[0], known[0], known)).toBe(known[0]);
    expect(tokenResource(known[1], undefined, known)).toBe(known[1]);
    expect(() => tokenResource(known[1], known[0], known)).toThrow(/authorized for/);
  });
  it('never accept a string that is not one of the known resources', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (value) => {
        if (known.includes(value)) return;
        expect(() => checkResource(value, known)).toThrow();
      }),
    );
  });
});
