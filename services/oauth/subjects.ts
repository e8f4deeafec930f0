import type { OAuthClient } from './clients/client.ts';
import { pairwiseSubject } from './clients/sector.ts';
import type { DemoUser } from './demo-users.ts';

type SubjectClient = Pick<OAuthClient, 'subject_type' | 'sector'>;

/**
 * The `sub` a client sees for a person (OpenID Connect Core §8): the user id for public-subject
 * clients, a per-sector pairwise value for the others. Codes and refresh families keep the user id;
 * tokens carry what the client may see.
 */
export class Subjects {
  constructor(
    private readonly users: ReadonlyMap<string, DemoUser>,
    private readonly salt: Uint8Array,
  ) {}

  subjectFor(client: SubjectClient, userId: string): string {
    return client.subject_type === 'pairwise' && client.sector
      ? pairwiseSubject(client.sector, userId, this.salt)
      : userId;
  }

  /** The person behind a `sub` this client was given (UserInfo); the demo users are few, so each is tried. */
  userFor(client: SubjectClient, sub: string): DemoUser | undefined {
    if (client.subject_type !== 'pairwise' || !client.sector) return this.users.get(sub);
    for (const user of this.users.values()) if (this.subjectFor(client, user.id) === sub) return user;
    return undefined;
  }
}
