import { join } from 'node:path';
import { Catalog } from '../content/catalog.ts';
import { loadRegistry } from '../conformance/registry.ts';
import type { SourceFiles } from '../content/files.ts';
import { collectArtefacts, type Artefact } from './artefacts.ts';

/** The palette's input, read from the content tree and the conformance registry under `rootDir`. */
export function paletteArtefacts(
  files: SourceFiles,
  rootDir: string,
  isExecutable: (protocol: string, flow: string) => boolean,
): Artefact[] {
  const contentDir = join(rootDir, 'content');
  return collectArtefacts(
    files,
    contentDir,
    Catalog.load(files, contentDir),
    loadRegistry(files, join(rootDir, 'conformance/registry.yaml')),
    isExecutable,
  );
}
