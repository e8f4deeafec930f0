import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { SourceFiles } from '../content/files.ts';
import { ContentError, checkFields, readContentFile } from '../content/front-matter.ts';

export interface Skill {
  name: string;
  description: string;
  /** The served SKILL.md bytes: front matter and body with this origin's URLs substituted. */
  markdown: string;
  digest: string;
}

const SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

/**
 * Renders every skill of `content/skills/` once. The index and the artifact come from the same
 * rendering, so the index digest is always the SHA-256 of the served bytes.
 */
/** A skill's part that only an extension serves: kept where the extension is on, cut where it is off. */
const EXTENSION_BLOCK = /<!-- extension: ([A-Z_]+) -->\n?([\s\S]*?)<!-- \/extension -->\n?/g;

export function renderSkills(
  files: SourceFiles,
  contentDir: string,
  vars: Record<string, string>,
  enabledExtensions: ReadonlySet<string> = new Set(),
): Skill[] {
  const dir = join(contentDir, 'skills');
  return files
    .list(dir)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((file) => {
      const c = readContentFile(files, join(dir, file));
      checkFields(c, { name: { kind: 'string', required: true }, description: { kind: 'string', required: true } });
      const name = c.data.name as string;
      if (`${name}.md` !== file) throw new ContentError(c.file, 'name must match the file name');
      const fill = (text: string) =>
        text
          .replace(EXTENSION_BLOCK, (_m, extension: string, part: string) =>
            enabledExtensions.has(extension) ? part : '',
          )
          .replace(/\{\{(\w+)\}\}/g, (_m, key: string) => vars[key] ?? `{{${key}}}`);
      const description = fill(c.data.description as string);
      const markdown = `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n${fill(c.body)}\n`;
      return { name, description, markdown, digest: `sha256:${createHash('sha256').update(markdown).digest('hex')}` };
    });
}

export function skillsIndex(skills: Skill[], baseUrl: string) {
  return {
    $schema: SKILLS_SCHEMA,
    skills: skills.map((s) => ({
      name: s.name,
      type: 'skill-md',
      description: s.description,
      url: `${baseUrl}/.well-known/agent-skills/${s.name}/SKILL.md`,
      digest: s.digest,
    })),
  };
}
