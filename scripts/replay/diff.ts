import { diffRuns, type RunDiff } from '../../services/streams/diff.ts';
import type { StreamExport } from '../../services/streams/export.ts';
import { ExportRefused, readExport } from '../../services/streams/import.ts';
import { refusalOf } from './import.ts';
import { readJsonFile } from './read-json-file.ts';

const RUN_REFERENCE = /^(?:run:|.*\/runs\/)([A-Za-z0-9_-]{1,100})\/?$/;

/**
 * One side of a diff: an export file, or a run of a running service (`run:<id>`, or a run page or
 * API URL) read through its export. The developer names the service (`--base` or the URL itself):
 * this is their own command line, not a request a service makes for someone else.
 */
async function load(reference: string, base: string | undefined): Promise<StreamExport> {
  const run = RUN_REFERENCE.exec(reference);
  if (!run) {
    const read = await readJsonFile(reference);
    if ('refused' in read) throw new ExportRefused(read.refused);
    return readExport(read.value);
  }
  const origin = /^https?:\/\//.test(reference) ? new URL(reference).origin : base;
  if (!origin) throw new ExportRefused(`${reference} names a run: give the service with --base <url>`);
  const response = await fetch(`${origin}/api/streams/run:${run[1]}/export`, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new ExportRefused(`${reference}: the service answered ${response.status}`);
  return readExport(await response.json());
}

const show = (value: unknown) => (value === undefined ? '(absent)' : JSON.stringify(value));

function print(diff: RunDiff): void {
  const name = (side: RunDiff['a']) => `${side.stream} (${side.protocol}/${side.flow}, ${side.events} events)`;
  console.log(`a: ${name(diff.a)}\nb: ${name(diff.b)}`);
  if (!diff.same_flow) console.log('different flows: exchanges aligned by step');
  const d = diff.first_divergence;
  if (d)
    console.log(
      `events diverge at ${d.index}: a ${d.a ? `${d.a.type} -> ${show(d.a.state)}` : '(ended)'}, b ${d.b ? `${d.b.type} -> ${show(d.b.state)}` : '(ended)'}`,
    );
  for (const x of diff.exchanges) {
    const head = `#${x.index} ${x.step}`;
    if (x.presence !== 'both') console.log(`${head}: only in ${x.presence === 'only_in_a' ? 'a' : 'b'}`);
    else if (x.differences.length === 0) console.log(`${head}: same (${x.volatile.length} volatile)`);
    else {
      console.log(`${head}: ${x.differences.length} difference(s), ${x.volatile.length} volatile`);
      for (const f of x.differences) console.log(`  ${f.pointer}: a ${show(f.a)}, b ${show(f.b)}`);
    }
  }
  console.log(diff.same ? 'same up to volatile values' : 'different');
}

/** `npm run replay -- --diff <a> <b> [--base <url>] [--json]`: exit 0 when the same up to volatile values, 1 otherwise, 2 when refused. */
export async function diffCommand(references: string[], base: string | undefined, asJson: boolean): Promise<number> {
  if (references.length !== 2) {
    console.error('usage: npm run replay -- --diff <a> <b> [--base <url>] [--json] (each an export file or run:<id>)');
    return 2;
  }
  let diff: RunDiff;
  try {
    diff = diffRuns(await load(references[0]!, base), await load(references[1]!, base));
  } catch (error) {
    console.error(refusalOf(error));
    return 2;
  }
  if (asJson) console.log(JSON.stringify(diff, null, 2));
  else print(diff);
  return diff.same ? 0 : 1;
}
