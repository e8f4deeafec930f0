import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import express from 'express';
import SCIMMY from 'scimmy';
import SCIMMYRouters from 'scimmy-routers';

/**
 * SCIMMY with its express routers on loopback: a SCIM service provider written by others, its users
 * and groups kept in memory, every request needing `Authorization: Bearer <token>`. The target of
 * `scim/check-server` in the peer tests.
 */
export async function startScimmyServer(token: string): Promise<{ base: string; close(): Promise<void> }> {
  const stores = { User: new Map<string, any>(), Group: new Map<string, any>() };
  for (const [type, store] of Object.entries(stores)) {
    // One set of handlers for both types; SCIMMY's typings give each type its own handler signature.
    const resource = (type === 'User' ? SCIMMY.Resources.User : SCIMMY.Resources.Group) as typeof SCIMMY.Resources.User;
    SCIMMY.Resources.declare(resource)
      .ingress((r: { id?: string }, data: any) => {
        if (r.id && !store.has(r.id)) throw new SCIMMY.Types.Error(404, '', `Resource ${r.id} not found`);
        if (
          type === 'User' &&
          [...store.values()].some(
            (u) => u.id !== r.id && u.userName.toLowerCase() === String(data.userName).toLowerCase(),
          )
        )
          throw new SCIMMY.Types.Error(409, 'uniqueness', 'userName is taken');
        const now = new Date().toISOString();
        const id = r.id ?? randomUUID();
        const record = { ...data, id, meta: { created: store.get(id)?.meta?.created ?? now, lastModified: now } };
        store.set(id, record);
        return record;
      })
      .egress((r: { id?: string }) => {
        if (r.id) {
          const found = store.get(r.id);
          if (!found) throw new SCIMMY.Types.Error(404, '', `Resource ${r.id} not found`);
          return found;
        }
        return [...store.values()];
      })
      .degress((r: { id?: string }) => {
        if (!r.id || !store.delete(r.id)) throw new SCIMMY.Types.Error(404, '', `Resource ${r.id} not found`);
      });
  }
  const app = express();
  app.use(
    '/scim',
    new SCIMMYRouters({
      type: 'bearer',
      docUri: 'https://example.com/scim-help',
      handler: (request: { header(name: string): string | undefined }) => {
        if (request.header('Authorization') !== `Bearer ${token}`) throw new Error('Authorization not detected!');
        return 'tester';
      },
    }),
  );
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}/scim`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
