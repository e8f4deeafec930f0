/**
 * `npm run build:palette`: writes the palette index to SHOWCASE_PALETTE_DB (default
 * `$DATA_DIR/palette.db`). Fails, naming the file, on invalid content or a requirement explainer whose
 * id is not in the registry.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentAuthSettings } from '../services/agentauth/settings.ts';
import { defaultFlowRunners, flowRunnerOptions } from '../services/flows/default-runners.ts';
import { buildPaletteIndex } from '../services/palette/build.ts';
import { paletteArtefacts } from '../services/palette/source.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const out = resolve(process.env.SHOWCASE_PALETTE_DB || join(process.env.DATA_DIR || './data', 'palette.db'));
try {
  const runners = defaultFlowRunners(
    agentAuthSettings('http://localhost', process.env.AGENT_AUTH_VENDOR || 'portico').claimGrantType,
    flowRunnerOptions(process.env, process.env.SHOWCASE_BASE_URL || 'http://localhost:8080'),
  );
  const { version, artefacts } = buildPaletteIndex(
    paletteArtefacts(root, (p, f) => runners.has(p, f)),
    out,
  );
  console.log(`palette: ${artefacts} artefacts, index ${version} -> ${out}`);
} catch (error) {
  console.error(`palette build failed: ${(error as Error).message}`);
  process.exit(1);
}
