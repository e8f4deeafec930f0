import { decodeSdJwt, type LocatedDisclosure } from './decode.ts';
import { createKeyBindingJwt, type KeyBindingInput } from './key-binding.ts';
import { splitSdJwt } from './serialization.ts';
import type { ClaimPath } from './types.ts';

const isPrefix = (prefix: ClaimPath, path: ClaimPath) =>
  prefix.length <= path.length && prefix.every((step, i) => step === path[i]);

/**
 * Which disclosures reveal `paths`: each disclosure on the way to a requested claim (its ancestors)
 * and every disclosure beneath it. `'all'` keeps everything, an empty list nothing.
 */
function selectDisclosures(disclosures: LocatedDisclosure[], paths: ClaimPath[] | 'all'): LocatedDisclosure[] {
  if (paths === 'all') return disclosures;
  return disclosures.filter((d) => paths.some((p) => isPrefix(d.path, p) || isPrefix(p, d.path)));
}

export interface PresentInput {
  /** Claims to reveal, as paths into the full claims; `'all'` reveals everything. */
  disclose: ClaimPath[] | 'all';
  /** Adds a key-binding JWT when given. */
  keyBinding?: KeyBindingInput;
}

/** Builds a presentation: the issuer JWT, the chosen disclosures in their issued order, and optionally a KB-JWT. */
export async function presentSdJwtVc(sdJwt: string, input: PresentInput): Promise<string> {
  const decoded = decodeSdJwt(splitSdJwt(sdJwt).kbJwt ? sdJwt.slice(0, sdJwt.lastIndexOf('~') + 1) : sdJwt);
  const chosen = new Set(selectDisclosures(decoded.disclosures, input.disclose).map((d) => d.encoded));
  const ordered = decoded.parts.disclosures.filter((d) => chosen.has(d));
  return presentWithDisclosures(decoded.parts.issuerJwt, ordered, input.keyBinding);
}

/** Low level: the issuer JWT with exactly these disclosures (no closure over parents) and an optional KB-JWT. */
export async function presentWithDisclosures(
  issuerJwt: string,
  disclosures: string[],
  keyBinding?: KeyBindingInput,
): Promise<string> {
  const body = `${[issuerJwt, ...disclosures].join('~')}~`;
  return keyBinding ? body + (await createKeyBindingJwt(issuerJwt, disclosures, keyBinding)) : body;
}
