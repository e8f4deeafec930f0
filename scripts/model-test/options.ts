/** `npm run model-test -- [--base <url>] [--wallet <url>] [--machine <id>…] [--runs <n>] [--seed <n>] …` */
export interface TesterOptions {
  base?: string;
  wallet?: string;
  machines: string[];
  runs: number;
  seed: number;
  maxCommands: number;
  /** Requests per minute; unlimited against a service the tester started itself. */
  rate?: number;
  /** `<machine>.<guard>` to invert in the service the tester starts (the planted bug). */
  invertGuard?: string;
}

export const USAGE = `npm run model-test -- [options]
  --base <url>         the deployment to test (default: start one on free ports, and stop it after)
  --wallet <url>       its wallet harness (default: the one started beside it)
  --machine <id>       a machine to test, repeatable (default: every machine with a model)
  --runs <n>           random command sequences per machine (default 25)
  --seed <n>           fast-check seed, to run a failure again (default: random)
  --max-commands <n>   longest random sequence (default 30)
  --rate <n>           requests per minute to stay under (default 60 with --base: the default limit is 100,
                       and runs against the deployment itself make requests to it from this address too)
  --invert-guard <machine>.<guard>
                       test build: start the service with that guard inverted (not with --base)`;

const integer = (name: string, value: string | undefined, min: number): number => {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} needs an integer of at least ${min}`);
  return n;
};

export function parseOptions(argv: string[], randomSeed: number): TesterOptions {
  const options: TesterOptions = { machines: [], runs: 25, seed: randomSeed, maxCommands: 30 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    const take = () => {
      i++;
      if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value`);
      return value;
    };
    switch (flag) {
      case '--base':
        options.base = new URL(take()).origin;
        break;
      case '--wallet':
        options.wallet = new URL(take()).origin;
        break;
      case '--machine':
        options.machines.push(take());
        break;
      case '--runs':
        options.runs = integer(flag, take(), 1);
        break;
      case '--seed':
        options.seed = integer(flag, take(), -(2 ** 31));
        break;
      case '--max-commands':
        options.maxCommands = integer(flag, take(), 1);
        break;
      case '--rate':
        options.rate = integer(flag, take(), 1);
        break;
      case '--invert-guard':
        options.invertGuard = take();
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  if (options.invertGuard && options.base)
    throw new Error('--invert-guard starts a test build; it cannot change a deployment given with --base');
  return options;
}
