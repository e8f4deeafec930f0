import { existsSync, readFileSync, readdirSync } from 'node:fs';
import type { SourceFiles } from '../../services/content/files.ts';

/** The source files on the local file system. */
export const nodeFiles: SourceFiles = {
  exists: (path) => existsSync(path),
  list: (dir) => (existsSync(dir) ? readdirSync(dir).sort() : []),
  readText: (path) => readFileSync(path, 'utf8'),
  readBytes: (path) => new Uint8Array(readFileSync(path)),
};
