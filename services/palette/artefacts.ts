import type { SourceFiles } from '../content/files.ts';
import { join } from 'node:path';
import type { Catalog } from '../content/catalog.ts';
import { ContentError, checkFields, readContentFile } from '../content/front-matter.ts';
import { explainerPath, type Registry } from '../conformance/registry.ts';

export interface Artefact {
  id: string;
  type: 'protocol' | 'flow' | 'concept' | 'skill' | 'spec' | 'requirement';
  name: string;
  summary: string;
  protocol: string | null;
  href: string;
  runnable: boolean;
  body: string;
  aliases: string[];
  axes: Array<[axis: string, value: string]>;
  edges: Array<[to: string, kind: string]>;
}

/** Everything the palette indexes, validated, in a fixed order (the build is deterministic). */
export function collectArtefacts(
  files: SourceFiles,
  contentDir: string,
  catalog: Catalog,
  registry: Registry,
  isExecutable: (p: string, f: string) => boolean,
): Artefact[] {
  const out: Artefact[] = [];
  for (const p of catalog.protocols()) {
    out.push({
      id: `protocol:${p.id}`,
      type: 'protocol',
      name: p.name,
      summary: p.description,
      protocol: p.id,
      href: `/protocol/${p.id}`,
      runnable: false,
      body: [p.body, p.tags.join(' '), p.specs.map((s) => s.title).join(' ')].join('\n'),
      aliases: [p.id, ...p.aliases],
      axes: p.tags.map((t) => ['tag', t]),
      edges: p.specs.map((s) => [`spec:${s.id}`, 'cites']),
    });
    for (const f of catalog.flows(p.id)) {
      out.push({
        id: `flow:${p.id}/${f.id}`,
        type: 'flow',
        name: f.name,
        summary: f.description,
        protocol: p.id,
        href: `/protocol/${p.id}/flow/${f.id}`,
        runnable: isExecutable(p.id, f.id),
        body: [f.body, ...f.steps.map((s) => `${s.name} ${s.description} ${s.spec_ref ?? ''}`)].join('\n'),
        aliases: f.aliases,
        axes: [['category', f.category]],
        edges: [[`protocol:${p.id}`, 'part-of']],
      });
    }
  }
  const ids = new Set(out.map((a) => a.id));
  const conceptDir = join(contentDir, 'concepts');
  for (const file of files.list(conceptDir).filter((f) => f.endsWith('.md'))) {
    const c = readContentFile(files, join(conceptDir, file));
    checkFields(c, {
      id: { kind: 'string', required: true },
      name: { kind: 'string', required: true },
      summary: { kind: 'string', required: true },
      protocol: { kind: 'string' },
      aliases: { kind: 'string[]' },
      related: { kind: 'string[]' },
    });
    const protocol = c.data.protocol as string | undefined;
    if (protocol && !catalog.protocol(protocol)) throw new ContentError(c.file, `unknown protocol "${protocol}"`);
    const related = (c.data.related as string[] | undefined) ?? [];
    for (const r of related)
      if (!ids.has(`flow:${r}`)) throw new ContentError(c.file, `related flow "${r}" does not exist`);
    out.push({
      id: `concept:${c.data.id}`,
      type: 'concept',
      name: c.data.name as string,
      summary: c.data.summary as string,
      protocol: protocol ?? null,
      href: related[0] ? `/protocol/${related[0].replace('/', '/flow/')}` : `/protocol/${protocol}`,
      runnable: false,
      body: c.body,
      aliases: (c.data.aliases as string[]) ?? [],
      axes: [],
      edges: related.map((r) => [`flow:${r}`, 'explains']),
    });
  }
  const skillDir = join(contentDir, 'skills');
  for (const file of files.list(skillDir).filter((f) => f.endsWith('.md'))) {
    const c = readContentFile(files, join(skillDir, file));
    out.push({
      id: `skill:${c.data.name}`,
      type: 'skill',
      name: `Skill: ${c.data.name as string}`,
      summary: c.data.description as string,
      protocol: null,
      href: `/.well-known/agent-skills/${c.data.name}/SKILL.md`,
      runnable: false,
      body: c.body,
      aliases: [String(c.data.name).replace(/-/g, ' ')],
      axes: [],
      edges: [],
    });
  }
  for (const s of registry.specs) {
    out.push({
      id: `spec:${s.id}`,
      type: 'spec',
      name: s.title,
      summary: `${s.version}: the requirements this build implements, with self-test verdicts`,
      protocol: null,
      href: `/spec/${s.id}`,
      runnable: false,
      body: s.title,
      aliases: [s.id, s.version],
      axes: [],
      edges: [],
    });
  }
  for (const r of registry.requirements) {
    out.push({
      id: `requirement:${r.id}`,
      type: 'requirement',
      name: `${r.id} (${r.level})`,
      summary: r.statement,
      protocol: null,
      href: `/spec/${r.spec}/${r.id}`,
      runnable: false,
      body: `${r.statement} ${r.section}`,
      aliases: [r.id],
      axes: [['level', r.level], ...r.roles.map((x) => ['role', x] as [string, string])],
      edges: [[`spec:${r.spec}`, 'part-of']],
    });
  }
  // An explainer must name a requirement of the registry, in its own spec folder.
  const known = new Set(registry.requirements.map((r) => r.id));
  const reqDir = join(contentDir, 'requirements');
  for (const spec of files.list(reqDir)) {
    for (const file of files
      .list(join(reqDir, spec))
      .filter((f) => f.endsWith('.md'))
      .sort()) {
      const c = readContentFile(files, join(reqDir, spec, file));
      checkFields(c, { id: { kind: 'string', required: true }, spec: { kind: 'string', required: true } });
      const id = c.data.id as string;
      if (!known.has(id))
        throw new ContentError(c.file, `requirement explainer "${id}" is not in conformance/registry.yaml`);
      if (explainerPath(contentDir, { spec: c.data.spec as string, id }) !== c.file)
        throw new ContentError(c.file, 'an explainer lives at content/requirements/<spec>/<id>.md');
    }
  }
  const seen = new Set<string>();
  for (const a of out) {
    if (seen.has(a.id)) throw new Error(`duplicate artefact id ${a.id}`);
    seen.add(a.id);
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}
