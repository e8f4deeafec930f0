import { randomInt } from 'node:crypto';
import { Http, RateLimited } from './model-test/http.ts';
import { MODELS } from './model-test/models/index.ts';
import { parseOptions, USAGE, type TesterOptions } from './model-test/options.ts';
import { formatReport } from './model-test/report.ts';
import { startDeployment, type StartedDeployment } from './model-test/deployment.ts';
import { testMachine, type MachineReport } from './model-test/runner.ts';

/**
 * Requests per minute against a deployment named with --base: 60% of RATE_LIMIT_PER_MINUTE's default
 * (100). The rest is room for what the deployment's own limit also counts from this address: the
 * requests a run against the deployment as its own target makes to it, and pages a person opens.
 */
const DEFAULT_PACE = 60;

/**
 * `npm run model-test`: drives a deployment through its machines over HTTP only, and checks every
 * answer and every logged state against the machines' models (docs/machines.md). Exits 1 on any failure.
 */
async function main(argv: string[]): Promise<number> {
  let options: TesterOptions;
  try {
    options = parseOptions(argv, randomInt(2 ** 31));
  } catch (error) {
    console.error(`model-test: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const unknown = options.machines.filter((id) => !MODELS.some((m) => m.machine === id));
  if (unknown.length > 0) {
    console.error(`model-test: no model for ${unknown.join(', ')}; models: ${MODELS.map((m) => m.machine).join(', ')}`);
    return 2;
  }
  let started: StartedDeployment | undefined;
  try {
    if (!options.base) started = await startDeployment(options.invertGuard);
    const base = options.base ?? started!.main.url;
    const walletUrl = options.wallet ?? started?.wallet.url;
    const rate = options.rate ?? (options.base ? DEFAULT_PACE : Infinity);
    const target = {
      http: new Http(base, rate),
      ...(walletUrl ? { wallet: new Http(walletUrl, rate) } : {}),
    };
    const chosen = MODELS.filter((m) => options.machines.length === 0 || options.machines.includes(m.machine));
    console.log(
      `model-test against ${base}${started ? ' (started by the tester)' : ''}: seed ${options.seed}, ` +
        `${options.runs} runs per machine${options.invertGuard ? `, guard ${options.invertGuard} inverted` : ''}`,
    );
    const reports: MachineReport[] = [];
    // Ctrl-C stops the run at the next request; what was covered so far is reported.
    const stop = new AbortController();
    const interrupt = () => stop.abort();
    process.once('SIGINT', interrupt);
    try {
      for (const model of chosen) {
        if (model.needsWallet && !target.wallet) {
          console.log(`skip ${model.machine}: needs the wallet harness (--wallet <url>)`);
          continue;
        }
        const report = await testMachine(
          model as never,
          target,
          { runs: options.runs, seed: options.seed, maxCommands: options.maxCommands },
          { progress: (line) => console.log(line), signal: stop.signal },
        );
        reports.push(report);
        if (report.stopped) break;
      }
    } finally {
      process.off('SIGINT', interrupt);
    }
    console.log(formatReport(reports, options.seed, options.runs));
    console.log(`${target.http.requests} requests`);
    return reports.some((r) => r.failures.length > 0 || r.stopped) ? 1 : 0;
  } catch (error) {
    console.error(`model-test: ${error instanceof RateLimited ? '' : 'could not run: '}${(error as Error).message}`);
    return 1;
  } finally {
    await started?.stop();
  }
}

process.exitCode = await main(process.argv.slice(2));
