import type { SourceFiles } from './files.ts';
import { parse } from 'yaml';

/** A content file: YAML front matter between `---` lines, then markdown. */
export interface ContentFile {
  file: string;
  data: Record<string, unknown>;
  body: string;
}

export class ContentError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'ContentError';
  }
}

export function readContentFile(files: SourceFiles, file: string): ContentFile {
  const text = files.readText(file);
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) throw new ContentError(file, 'missing front matter (a block between --- lines at the top)');
  let data: unknown;
  try {
    data = parse(match[1]);
  } catch (error) {
    throw new ContentError(file, `front matter is not valid YAML: ${(error as Error).message}`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new ContentError(file, 'front matter must be a mapping');
  return { file, data: data as Record<string, unknown>, body: match[2].trim() };
}

type FieldKind = 'string' | 'string[]' | 'number' | 'boolean' | 'object[]';

/** Checks the front matter against a field list: every required field present, no unknown field. */
export function checkFields(c: ContentFile, fields: Record<string, { kind: FieldKind; required?: boolean }>): void {
  for (const key of Object.keys(c.data))
    if (!(key in fields)) throw new ContentError(c.file, `unknown front matter field "${key}"`);
  for (const [key, spec] of Object.entries(fields)) {
    const value = c.data[key];
    if (value === undefined) {
      if (spec.required) throw new ContentError(c.file, `missing front matter field "${key}"`);
      continue;
    }
    const ok =
      spec.kind === 'string'
        ? typeof value === 'string' && value.length > 0
        : spec.kind === 'number'
          ? typeof value === 'number'
          : spec.kind === 'boolean'
            ? typeof value === 'boolean'
            : spec.kind === 'string[]'
              ? Array.isArray(value) && value.every((v) => typeof v === 'string')
              : Array.isArray(value) && value.every((v) => v && typeof v === 'object' && !Array.isArray(v));
    if (!ok) throw new ContentError(c.file, `front matter field "${key}" must be ${spec.kind}`);
  }
}
