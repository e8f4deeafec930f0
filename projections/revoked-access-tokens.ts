import type Database from 'better-sqlite3';
import type { CommittedEvent, Projection } from './types.ts';

/**
 * Access-token `jti` values that are revoked before they expire: by RFC 7009 revocation
 * (`once:access-revoked:<jti>` streams), by a replayed authorization code, or with a refresh family.
 */
export class RevokedAccessTokens implements Projection {
  readonly name = 'revoked_access_tokens';
  private insert?: Database.Statement<[string, number]>;
  private lookup?: Database.Statement<[string], { jti: string }>;

  setup(db: Database.Database): void {
    db.exec('CREATE TABLE IF NOT EXISTS revoked_access_tokens (jti TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL) WITHOUT ROWID');
    this.insert = db.prepare('INSERT OR IGNORE INTO revoked_access_tokens (jti, revoked_at) VALUES (?, ?)');
    this.lookup = db.prepare('SELECT jti FROM revoked_access_tokens WHERE jti = ?');
  }

  drop(db: Database.Database): void {
    db.exec('DROP TABLE IF EXISTS revoked_access_tokens');
  }

  apply(events: readonly CommittedEvent[]): boolean {
    let changed = false;
    for (const e of events) {
      if (e.type === 'value.used' && e.streamId.startsWith('once:access-revoked:')) {
        this.insert!.run(e.streamId.slice('once:access-revoked:'.length), e.at);
        changed = true;
      } else if (e.type === 'code.replayed' || e.type === 'refresh.reused' || e.type === 'refresh.revoked') {
        for (const jti of (e.data.revokesAccess as string[] | undefined) ?? []) this.insert!.run(jti, e.at);
        changed = true;
      }
    }
    return changed;
  }

  isRevoked(jti: string): boolean {
    return this.lookup!.get(jti) !== undefined;
  }
}
