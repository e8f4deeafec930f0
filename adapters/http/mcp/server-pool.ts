import { createMcpHandler, type McpRequestContext, type McpServer } from '@modelcontextprotocol/server';

/**
 * A factory for `createMcpHandler` that hands out idle servers again. The SDK asks for an instance per
 * stateless request and takes any that is not serving another one (it refuses a busy one), so the
 * servers a modern-revision request closed are kept and reused: building one, with its tools, costs
 * more than the call itself. Such a request carries its whole envelope, and the SDK sets its revision
 * and client identity on the instance each time. A 2025-era request (initialize, then state on the
 * instance) always gets a fresh one, never pooled.
 */
function pooledServers(build: () => McpServer, keep = 64): (ctx: McpRequestContext) => McpServer {
  const idle: McpServer[] = [];
  const fresh = (): McpServer => {
    const server = build();
    // The SDK chains any onclose it finds, so this runs when each exchange ends.
    server.server.onclose = () => {
      if (idle.length < keep && !idle.includes(server)) idle.push(server);
    };
    return server;
  };
  return (ctx) => {
    if (ctx.era === 'legacy') return build();
    for (let server = idle.pop(); server; server = idle.pop()) if (server.server.transport === undefined) return server;
    return fresh();
  };
}

/** An endpoint's SDK handler, with pooled servers. */
export function statelessMcpHandler(build: () => McpServer, onerror: (error: Error) => void) {
  return createMcpHandler(pooledServers(build), { onerror });
}
