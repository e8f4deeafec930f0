import { ExportRefused, readExport, refold, type Refold } from '../../services/streams/import.ts';
import { readJsonFile } from './read-json-file.ts';

type FileReport = { file: string } & ({ refused: string } | Refold);

/**
 * `npm run replay -- --import <file>…`: each export's format and digest checked, its events folded
 * through this commit's machine. Exit 2 when a file is refused (nothing of it is printed as valid),
 * 1 when a recorded state diverges from the fold, 0 otherwise.
 */
export async function importExports(files: string[], asJson: boolean): Promise<number> {
  const reports: FileReport[] = [];
  for (const file of files) {
    const read = await readJsonFile(file);
    if ('refused' in read) {
      reports.push({ file, refused: read.refused });
      continue;
    }
    try {
      reports.push({ file, ...refold(readExport(read.value)) });
    } catch (error) {
      reports.push({ file, refused: `${file}: ${refusalOf(error)}` });
    }
  }
  if (asJson) console.log(JSON.stringify({ files: reports }, null, 2));
  else for (const report of reports) printReport(report);
  if (reports.some((r) => 'refused' in r)) return 2;
  return reports.some((r) => 'divergence' in r) ? 1 : 0;
}

/**
 * Why a file was refused, in one line. A file is the user's but may come from anywhere: whatever it
 * makes the check or the fold throw (a nesting too deep to walk, an event the machine cannot take) is a
 * refusal of that file, never a crash.
 */
export function refusalOf(error: unknown): string {
  if (error instanceof ExportRefused) return error.message;
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  return error instanceof RangeError
    ? `not a readable export: it is nested too deeply (${first})`
    : `not a readable export: ${first}`;
}

function printReport(report: FileReport): void {
  if ('refused' in report) {
    console.error(report.refused);
    return;
  }
  console.log(`\n${report.file}: ${report.stream} (${report.timeline.length} events)`);
  if (!report.same_machine) console.log('  note: exported by another version of this machine');
  for (const [index, step] of report.timeline.entries())
    console.log(
      `  ${String(index + 1).padStart(4)}  ${step.at}  ${step.type.padEnd(32)} -> ${JSON.stringify(step.folded)}`,
    );
  if (report.divergence)
    console.log(
      `  diverges at event ${report.divergence.event}: recorded ${JSON.stringify(report.divergence.recorded)}, folded ${JSON.stringify(report.divergence.folded)}`,
    );
  else console.log(`  folds to ${JSON.stringify(report.final_state)}, as recorded`);
}
