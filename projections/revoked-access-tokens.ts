import { sql, type CommittedEvent, type Dialect, type SqlStatement } from './types.ts';
import { ReadModel } from './read-model.ts';

/**
 * Access-token `jti` values that are revoked before they expire: by RFC 7009 revocation
 * (`once:access-revoked:<jti>` streams), by a replayed authorization code, or with a refresh family.
 */
export class RevokedAccessTokens extends ReadModel {
  readonly name = 'revoked_access_tokens';
  readonly tables = ['revoked_access_tokens'];

  schema(dialect: Dialect): string[] {
    return [
      `CREATE TABLE IF NOT EXISTS revoked_access_tokens (jti TEXT PRIMARY KEY, revoked_at BIGINT NOT NULL)${dialect === 'sqlite' ? ' WITHOUT ROWID' : ''}`,
    ];
  }

  apply(events: readonly CommittedEvent[]): SqlStatement[] {
    const out: SqlStatement[] = [];
    const revoke = (jti: string, at: number) =>
      out.push(
        sql('INSERT INTO revoked_access_tokens (jti, revoked_at) VALUES (?, ?) ON CONFLICT DO NOTHING', jti, at),
      );
    for (const e of events) {
      if (e.type === 'value.used' && e.streamId.startsWith('once:access-revoked:'))
        revoke(e.streamId.slice('once:access-revoked:'.length), e.at);
      else if (e.type === 'code.replayed' || e.type === 'refresh.reused' || e.type === 'refresh.revoked') {
        for (const jti of (e.data.revokesAccess as string[] | undefined) ?? []) revoke(jti, e.at);
      }
    }
    return out;
  }

  async isRevoked(jti: string): Promise<boolean> {
    return (await this.read.get('SELECT jti FROM revoked_access_tokens WHERE jti = ?', [jti])) !== undefined;
  }
}
