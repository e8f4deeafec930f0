import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import { nodeFiles } from '../files/node-files.ts';
import { paletteArtefacts } from '../../services/palette/source.ts';
import { buildPaletteIndex, indexVersion } from './build-index.ts';
import { Palette } from './sqlite-palette.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Opens the palette index. In production a missing SHOWCASE_PALETTE_DB (or an unreadable file) stops
 * the start; elsewhere an index that is missing or stale is built from the content first.
 */
export function openPalette(
  config: Config,
  executable: (protocol: string, flow: string) => boolean,
): Palette | undefined {
  const { palette: settings } = config;
  const file = settings.file || join(config.dataDir, 'palette.db');
  if (settings.production) {
    if (!settings.file)
      throw new Error(
        'SHOWCASE_ENV=production needs SHOWCASE_PALETTE_DB (the prebuilt palette index; build it with npm run build:palette)',
      );
    try {
      return new Palette(file);
    } catch (error) {
      throw new Error(`SHOWCASE_ENV=production: cannot open the palette index ${file}: ${(error as Error).message}`);
    }
  }
  const artefacts = paletteArtefacts(nodeFiles, ROOT, executable);
  let palette: Palette | undefined;
  if (existsSync(file)) {
    try {
      palette = new Palette(file);
    } catch {
      palette = undefined;
    }
  }
  if (!palette || palette.version !== indexVersion(artefacts)) {
    palette?.close();
    buildPaletteIndex(artefacts, file);
    palette = new Palette(file);
  }
  return palette;
}
