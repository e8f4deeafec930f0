import type { SourceFiles } from './files.ts';
import { join } from 'node:path';
import { ContentError, checkFields, readContentFile } from './front-matter.ts';

interface SpecRef {
  id: string;
  title: string;
  url: string;
}

export interface Protocol {
  id: string;
  name: string;
  version: string;
  description: string;
  tags: string[];
  specs: SpecRef[];
  aliases: string[];
  body: string;
}

export interface FlowStep {
  order: number;
  name: string;
  from: string;
  to: string;
  type: string;
  description: string;
  spec_ref?: string;
}

export interface Flow {
  id: string;
  protocol: string;
  name: string;
  description: string;
  category: string;
  aliases: string[];
  steps: FlowStep[];
  body: string;
  /** Extensions the flow needs (decisions §11), e.g. `DYNAMIC_CLIENTS`; listed only where all are on. */
  extensions: string[];
}

const STEP_TYPES = new Set(['request', 'response', 'redirect', 'user', 'internal', 'poll', 'event']);

/** The protocol catalog, read once from `content/protocols` and `content/flows/<protocol>`. */
export class Catalog {
  private constructor(
    private readonly byId: Map<string, Protocol>,
    private readonly flowsBy: Map<string, Flow[]>,
  ) {}

  static load(files: SourceFiles, contentDir: string): Catalog {
    const protocols = new Map<string, Protocol>();
    const protocolDir = join(contentDir, 'protocols');
    for (const name of files
      .list(protocolDir)
      .filter((f) => f.endsWith('.md'))
      .sort()) {
      const c = readContentFile(files, join(protocolDir, name));
      checkFields(c, {
        id: { kind: 'string', required: true },
        name: { kind: 'string', required: true },
        version: { kind: 'string', required: true },
        description: { kind: 'string', required: true },
        tags: { kind: 'string[]', required: true },
        specs: { kind: 'object[]', required: true },
        aliases: { kind: 'string[]' },
      });
      const d = c.data;
      const p: Protocol = {
        id: d.id as string,
        name: d.name as string,
        version: d.version as string,
        description: d.description as string,
        tags: d.tags as string[],
        specs: d.specs as SpecRef[],
        aliases: (d.aliases as string[] | undefined) ?? [],
        body: c.body,
      };
      if (`${p.id}.md` !== name) throw new ContentError(c.file, `id "${p.id}" must match the file name`);
      for (const s of p.specs)
        if (!s.id || !s.title || !s.url) throw new ContentError(c.file, 'every spec needs id, title and url');
      protocols.set(p.id, p);
    }
    const flows = new Map<string, Flow[]>();
    const flowRoot = join(contentDir, 'flows');
    for (const protocol of files.list(flowRoot)) {
      if (!protocols.has(protocol))
        throw new ContentError(join(flowRoot, protocol), `no protocol "${protocol}" for these flows`);
      const list: Flow[] = [];
      for (const name of files
        .list(join(flowRoot, protocol))
        .filter((f) => f.endsWith('.md'))
        .sort()) {
        const c = readContentFile(files, join(flowRoot, protocol, name));
        checkFields(c, {
          id: { kind: 'string', required: true },
          protocol: { kind: 'string', required: true },
          name: { kind: 'string', required: true },
          description: { kind: 'string', required: true },
          category: { kind: 'string', required: true },
          steps: { kind: 'object[]', required: true },
          aliases: { kind: 'string[]' },
          extensions: { kind: 'string[]' },
        });
        const d = c.data;
        const f: Flow = {
          id: d.id as string,
          protocol: d.protocol as string,
          name: d.name as string,
          description: d.description as string,
          category: d.category as string,
          steps: d.steps as FlowStep[],
          aliases: (d.aliases as string[] | undefined) ?? [],
          extensions: (d.extensions as string[] | undefined) ?? [],
          body: c.body,
        };
        if (f.protocol !== protocol)
          throw new ContentError(c.file, `protocol "${f.protocol}" must be the folder name "${protocol}"`);
        if (`${f.id}.md` !== name) throw new ContentError(c.file, `id "${f.id}" must match the file name`);
        if (list.some((x) => x.id === f.id)) throw new ContentError(c.file, `duplicate flow id "${f.id}"`);
        f.steps.forEach((s, i) => {
          if (s.order !== i + 1) throw new ContentError(c.file, `step ${i + 1} must have order ${i + 1}`);
          if (!s.name || !s.from || !s.to || !s.description)
            throw new ContentError(c.file, `step ${i + 1} needs name, from, to and description`);
          if (!STEP_TYPES.has(s.type)) throw new ContentError(c.file, `step ${i + 1} has unknown type "${s.type}"`);
        });
        list.push(f);
      }
      flows.set(protocol, list);
    }
    return new Catalog(protocols, flows);
  }

  /** The catalog a deployment serves: flows whose extensions are all among `enabled`, no others. */
  servedWith(enabled: ReadonlySet<string>): Catalog {
    const flows = new Map<string, Flow[]>();
    for (const [protocol, list] of this.flowsBy)
      flows.set(
        protocol,
        list.filter((f) => f.extensions.every((e) => enabled.has(e))),
      );
    return new Catalog(this.byId, flows);
  }

  protocols(): Protocol[] {
    return [...this.byId.values()];
  }

  protocol(id: string): Protocol | undefined {
    return this.byId.get(id);
  }

  flows(protocolId: string): Flow[] {
    return this.flowsBy.get(protocolId) ?? [];
  }

  flow(protocolId: string, flowId: string): Flow | undefined {
    return this.flows(protocolId).find((f) => f.id === flowId);
  }
}
