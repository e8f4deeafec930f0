import { readFile, stat } from 'node:fs/promises';

/** The largest export file the CLI reads. */
const MAX_EXPORT_BYTES = 16 * 1024 * 1024;

/** A JSON file of at most 16 MiB, or one line saying why not. */
export async function readJsonFile(file: string): Promise<{ value: unknown } | { refused: string }> {
  let size: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) return { refused: `${file} is not a file` };
    size = info.size;
  } catch {
    return { refused: `${file} cannot be read` };
  }
  if (size > MAX_EXPORT_BYTES) return { refused: `${file} is over 16 MiB (${size} bytes)` };
  try {
    return { value: JSON.parse(await readFile(file, 'utf8')) };
  } catch (error) {
    return { refused: `${file} is not JSON: ${(error as Error).message.split('\n')[0]}` };
  }
}
