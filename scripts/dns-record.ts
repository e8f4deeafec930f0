/**
 * `npm run dns-record -- <domain>` prints the entrypoint SVCB record of the spec;
 * `npm run dns-record -- <domain> --check '<zone line>'` checks a published line against its rules
 * and exits 1 naming every rule it breaks.
 */
import { parseArgs } from 'node:util';
import { checkEntrypointRecord, entrypointRecord } from '../services/discovery/dns-record.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { check: { type: 'string' } } });
const domain = positionals[0];
if (!domain || !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}\.?$/i.test(domain)) {
  console.error('usage: npm run dns-record -- <domain> [--check "<zone file line>"]');
  process.exit(2);
}
if (values.check === undefined) {
  console.log(entrypointRecord(domain));
  process.exit(0);
}
const problems = checkEntrypointRecord(values.check, domain);
if (problems.length === 0) {
  console.log('ok: the record follows every rule');
  process.exit(0);
}
for (const p of problems) console.log(`- ${p}`);
process.exit(1);
