import { describe, expect, it } from 'vitest';
import { Catalog } from '../../../services/content/catalog.ts';
import type { SourceFiles } from '../../../services/content/files.ts';
import { loadReport, loadRegistry } from '../../../services/conformance/registry.ts';

// Issue 37: content and conformance files are read through a port; a service works from any source.
function memoryFiles(entries: Record<string, string>): SourceFiles {
  const paths = new Map(Object.entries(entries));
  const children = (dir: string) =>
    [
      ...new Set(
        [...paths.keys()].filter((p) => p.startsWith(`${dir}/`)).map((p) => p.slice(dir.length + 1).split('/')[0]),
      ),
    ].sort();
  return {
    exists: (path) => paths.has(path) || children(path).length > 0,
    list: children,
    readText: (path) => {
      const text = paths.get(path);
      if (text === undefined) throw new Error(`no file ${path}`);
      return text;
    },
    readBytes: (path) => new TextEncoder().encode(paths.get(path) ?? ''),
  };
}

const PROTOCOL = `---
id: demo
name: Demo protocol
version: '1'
description: A protocol held in memory
tags: [demo]
specs:
  - { id: rfc0000, title: Nothing, url: 'https://example.com' }
---
Body text.`;

describe('the source files port', () => {
  it('the catalog loads from files held in memory', () => {
    const catalog = Catalog.load(memoryFiles({ 'c/protocols/demo.md': PROTOCOL }), 'c');
    expect(catalog.protocols().map((p) => [p.id, p.body])).toEqual([['demo', 'Body text.']]);
    expect(catalog.flows('demo')).toEqual([]);
  });

  it('a content error names the file the port was asked for', () => {
    const files = memoryFiles({ 'c/protocols/demo.md': PROTOCOL.replace('id: demo', 'id: other') });
    expect(() => Catalog.load(files, 'c')).toThrow('c/protocols/demo.md: id "other" must match the file name');
  });

  it('the registry digest is of the bytes the port returns, and a missing report is said so', () => {
    const yaml = 'specs: [{ id: rfc1, title: One, url: "https://example.com" }]\nrequirements: []\n';
    const files = memoryFiles({ 'registry.yaml': yaml });
    const registry = loadRegistry(files, 'registry.yaml');
    expect(registry.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(loadReport(files, 'report.json', registry)).toEqual({ problem: 'no report loaded' });
  });
});
