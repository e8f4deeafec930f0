/**
 * `npm run build:palette`: writes the palette index to SHOWCASE_PALETTE_DB (default
 * `$DATA_DIR/palette.db`). Fails, naming the file, on invalid content or a requirement explainer whose
 * id is not in the registry.
 */
import { join, resolve } from 'node:path';
import { loadConfig } from '../adapters/config.ts';
import { fileURLToPath } from 'node:url';
import { agentAuthSettings } from '../services/agentauth/settings.ts';
import { defaultFlowRunners, flowRunnerOptions } from '../services/flows/default-runners.ts';
import { buildPaletteIndex } from '../adapters/palette/build-index.ts';
import { paletteArtefacts } from '../services/palette/source.ts';
import { nodeFiles } from '../adapters/files/node-files.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
try {
  const config = loadConfig();
  const out = resolve(config.palette.file || join(config.dataDir, 'palette.db'));
  const runners = defaultFlowRunners(
    agentAuthSettings('http://localhost', config.vendor).claimGrantType,
    flowRunnerOptions(config.spiffe.enabled, config.showcaseBaseUrl),
  );
  const { version, artefacts } = buildPaletteIndex(
    paletteArtefacts(nodeFiles, root, (p, f) => runners.has(p, f)),
    out,
  );
  console.log(`palette: ${artefacts} artefacts, index ${version} -> ${out}`);
} catch (error) {
  console.error(`palette build failed: ${(error as Error).message}`);
  process.exit(1);
}
