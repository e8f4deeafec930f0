import type { PageChrome } from '../pages/respond.ts';

/** The wallet's navigation, on every page it serves. */
export const WALLET_CHROME: PageChrome = {
  nav: [
    ['Wallet', '/'],
    ['API recipes', '/llms-full.txt'],
    ['Agent skill', '/.well-known/agent-skills/use-wallet-harness/SKILL.md'],
  ],
};
