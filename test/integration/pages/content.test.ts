import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 14: content markdown is rendered into the document model, with placeholders filled, on every content page.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const get = async (path: string, accept: string) =>
  (await fetch(`${server.url}${path}`, { headers: { accept } })).text();
/** The visible text of an HTML page (tags dropped; code blocks kept, since they may show backticks legitimately). */
const visibleText = (html: string) =>
  html
    .replace(/<pre[\s\S]*?<\/pre>/g, '')
    .replace(/<(style|script)[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]+>/g, ' ');

describe('rendered content', () => {
  it('protocol, flow and requirement pages show no literal markdown and no unfilled {base}; their markdown twins are not escaped', async () => {
    const protocols = (await (await fetch(`${server.url}/api/protocols`)).json()) as {
      protocols: Array<{ id: string }>;
    };
    const paths: string[] = [];
    for (const { id } of protocols.protocols) {
      paths.push(`/protocol/${id}`);
      const flows = (await (await fetch(`${server.url}/api/protocols/${id}/flows`)).json()) as {
        flows: Array<{ id: string }>;
      };
      for (const f of flows.flows) paths.push(`/protocol/${id}/flow/${f.id}`);
    }
    const specs = (await (await fetch(`${server.url}/api/conformance/specs`)).json()) as {
      specs: Array<{ id: string; requirements?: Array<{ id: string }> }>;
    };
    for (const s of specs.specs) paths.push(`/spec/${s.id}`);
    expect(paths.length).toBeGreaterThan(20);
    let codeSpans = 0;
    for (const path of paths) {
      const html = await get(path, 'text/html');
      const text = visibleText(html);
      expect(text, path).not.toMatch(/`[^`\s][^`]*`/);
      expect(text, path).not.toContain('{base}');
      expect(text, path).not.toMatch(/\*\*[^*]+\*\*/);
      codeSpans += (html.match(/<code>/g) ?? []).length;
      const twin = await get(path, 'text/markdown');
      expect(twin, path).not.toContain('\\`');
      expect(twin, path).not.toContain('{base}');
    }
    expect(codeSpans).toBeGreaterThan(50); // code spans are rendered as code, not dropped
    const oauth = await get('/protocol/oauth2', 'text/html');
    expect(oauth).toContain(`<code>${server.url}/oauth2</code>`);
  });
});
