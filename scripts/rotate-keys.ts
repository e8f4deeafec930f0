import { loadConfig } from '../adapters/config.ts';
import { withDataDirLock } from '../adapters/keys/data-dir-lock.ts';
import { rotateKeys } from '../adapters/keys/file-key-ring.ts';

/**
 * `npm run rotate-keys -- [set ...]`: a fresh signing key for each named key set (every set when none
 * is named) in KEYS_FILE (default `$DATA_DIR/keys.json`). The new key signs from then on; the previous
 * one stays published and verifying. Running instances that share the file pick the change up within
 * a second.
 */
try {
  const { dataDir, keysFile: file } = loadConfig();
  // Not while an instance is provisioning: its write would drop the rotation.
  const rotated = await withDataDirLock(dataDir, () => rotateKeys(file, process.argv.slice(2)));
  console.log(`rotated ${rotated.join(', ')} in ${file}`);
} catch (error) {
  console.error(`rotate-keys: ${(error as Error).message}`);
  process.exit(1);
}
