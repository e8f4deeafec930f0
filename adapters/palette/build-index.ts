import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Artefact } from '../../services/palette/artefacts.ts';
import { staticOrder } from '../../services/palette/ranking.ts';

/** The index version: a digest of everything indexed, so the same input names the same index. */
export const indexVersion = (artefacts: Artefact[]) =>
  createHash('sha256').update(JSON.stringify(artefacts)).digest('hex').slice(0, 16);

/**
 * Writes the palette SQLite file (FTS5, porter unicode61) to `file` through a temp file and a rename.
 * Rows go in a fixed order (the static rank) and nothing time-dependent is stored, so the same input gives the same bytes.
 */
export function buildPaletteIndex(artefacts: Artefact[], file: string): { version: string; artefacts: number } {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.building`;
  rmSync(tmp, { force: true });
  const db = new Database(tmp);
  try {
    db.pragma('journal_mode = DELETE');
    db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE artefacts (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, name TEXT NOT NULL, summary TEXT NOT NULL,
        protocol TEXT, href TEXT NOT NULL, runnable INTEGER NOT NULL);
      CREATE TABLE aliases (artefact_id TEXT NOT NULL, alias TEXT NOT NULL, PRIMARY KEY (artefact_id, alias)) WITHOUT ROWID;
      CREATE TABLE axis_values (artefact_id TEXT NOT NULL, axis TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (artefact_id, axis, value)) WITHOUT ROWID;
      CREATE TABLE edges (from_id TEXT NOT NULL, to_id TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (from_id, to_id, kind)) WITHOUT ROWID;
      CREATE VIRTUAL TABLE search USING fts5(name, body, aliases, tokenize = 'porter unicode61', prefix = '1 2 3 4');
    `);
    const version = indexVersion(artefacts);
    const put = {
      artefact: db.prepare(
        'INSERT INTO artefacts (rowid, id, type, name, summary, protocol, href, runnable) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      search: db.prepare('INSERT INTO search (rowid, name, body, aliases) VALUES (?, ?, ?, ?)'),
      alias: db.prepare('INSERT OR IGNORE INTO aliases (artefact_id, alias) VALUES (?, ?)'),
      axis: db.prepare('INSERT OR IGNORE INTO axis_values (artefact_id, axis, value) VALUES (?, ?, ?)'),
      edge: db.prepare('INSERT OR IGNORE INTO edges (from_id, to_id, kind) VALUES (?, ?, ?)'),
      meta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)'),
    };
    db.transaction(() => {
      staticOrder(artefacts).forEach((a, i) => {
        const rowid = i + 1;
        put.artefact.run(rowid, a.id, a.type, a.name, a.summary, a.protocol, a.href, a.runnable ? 1 : 0);
        put.search.run(rowid, a.name, `${a.summary}\n${a.body}`, a.aliases.join(' | '));
        for (const alias of a.aliases) put.alias.run(a.id, alias.toLowerCase());
        for (const [axis, value] of a.axes) put.axis.run(a.id, axis, value);
        for (const [to, kind] of a.edges) put.edge.run(a.id, to, kind);
      });
      put.meta.run('index_version', version);
      put.meta.run('artefacts', String(artefacts.length));
      put.meta.run('schema', '2');
    })();
    db.exec("INSERT INTO search(search) VALUES ('optimize')");
    db.exec('VACUUM');
    db.close();
    renameSync(tmp, file);
    return { version, artefacts: artefacts.length };
  } catch (error) {
    if (db.open) db.close();
    rmSync(tmp, { force: true });
    throw error;
  }
}
