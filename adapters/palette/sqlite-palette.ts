import Database from 'better-sqlite3';
import { TYPE_WEIGHT } from '../../services/palette/ranking.ts';

export interface PaletteResult {
  id: string;
  type: string;
  name: string;
  summary: string;
  protocol: string | null;
  href: string;
  runnable: boolean;
  score: number;
  snippet: string;
}

/** A row of the index: the result's members, `runnable` as SQLite's 0 or 1, and the FTS rank. */
interface Row extends Omit<PaletteResult, 'runnable' | 'score'> {
  runnable: number;
  rank: number;
  aliases: string;
}

export const CANDIDATE_COUNT_CAP = 1000;
/** Past this many matches only the first ones in static-rank order are scored (see ranking.ts). */
export const RANK_WINDOW = 100;

/** Queries over the palette index, opened read-only. */
export class Palette {
  private readonly db: Database.Database;
  private readonly find;
  private readonly findTyped;
  private readonly count;
  readonly version: string;
  readonly artefacts: number;

  constructor(file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    const meta = new Map(
      this.db
        .prepare<[], { key: string; value: string }>('SELECT key, value FROM meta')
        .all()
        .map((r) => [r.key, r.value]),
    );
    this.version = meta.get('index_version') ?? 'unknown';
    this.artefacts = Number(meta.get('artefacts') ?? 0);
    // The inner query stops after RANK_WINDOW matches in static-rank order (rows are stored weightiest
    // first), so a query matching thousands of artefacts costs no more than one matching a hundred.
    const ranked = (
      typeFilter: string,
    ) => `SELECT * FROM (SELECT a.id, a.type, a.name, a.summary, a.protocol, a.href, a.runnable,
      search.aliases AS aliases, bm25(search, 10.0, 1.0, 6.0) AS rank, snippet(search, -1, '<mark>', '</mark>', '…', 12) AS snippet
      FROM search JOIN artefacts a ON a.rowid = search.rowid WHERE search MATCH ? ${typeFilter} LIMIT ${RANK_WINDOW}) ORDER BY rank LIMIT ?`;
    this.find = this.db.prepare<[string, number], Row>(ranked(''));
    this.findTyped = this.db.prepare<[string, string, number], Row>(ranked('AND a.type = ?'));
    // Counting is capped: past the cap the exact number tells a person nothing and costs a full scan.
    this.count = this.db.prepare<[string], { n: number }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM search WHERE search MATCH ? LIMIT ${CANDIDATE_COUNT_CAP})`,
    );
  }

  /** Words become quoted prefix terms (AND), so user input can never break the FTS5 syntax. */
  static matchExpression(q: string): string | undefined {
    const words = q
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu)
      ?.slice(0, 12);
    return words?.length ? words.map((w) => `"${w}"*`).join(' ') : undefined;
  }

  query(
    q: string,
    options: { scope?: string; limit?: number } = {},
  ): { results: PaletteResult[]; total_candidates: number } {
    const expr = Palette.matchExpression(q);
    if (!expr) return { results: [], total_candidates: 0 };
    // Counting first lets a query nothing matches stop after one pass over the index.
    const total = this.count.get(expr)!.n;
    if (total === 0) return { results: [], total_candidates: 0 };
    const limit = Math.min(Math.max(options.limit ?? 10, 1), 50);
    const pool = Math.max(limit * 3, 30);
    // Name and alias hits are ranked first (they are what a palette is for); body hits fill the rest.
    const named = `{name aliases} : (${expr})`;
    const run = (e: string) => (options.scope ? this.findTyped.all(e, options.scope, pool) : this.find.all(e, pool));
    let rows = run(named);
    if (rows.length < pool) {
      const seen = new Set(rows.map((r) => r.id));
      rows = [...rows, ...run(expr).filter((r) => !seen.has(r.id))];
    }
    const needle = q.trim().toLowerCase().replace(/\s+/g, ' ');
    const scored = rows.map((r) => {
      const aliases = r.aliases.split(' | ').map((a) => a.toLowerCase());
      let score = -r.rank * (TYPE_WEIGHT[r.type as keyof typeof TYPE_WEIGHT] ?? 1);
      if (aliases.includes(needle) || r.name.toLowerCase() === needle) score += 25;
      else if (r.name.toLowerCase().startsWith(needle)) score += 8;
      return {
        id: r.id,
        type: r.type,
        name: r.name,
        summary: r.summary,
        protocol: r.protocol,
        href: r.href,
        runnable: r.runnable === 1,
        score: Math.round(score * 1000) / 1000,
        snippet: r.snippet,
      };
    });
    scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    return { results: scored.slice(0, limit), total_candidates: total };
  }

  close(): void {
    this.db.close();
  }
}
