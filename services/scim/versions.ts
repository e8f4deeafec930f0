/**
 * RFC 7644 §3.14 with RFC 9110 §13.1.1: `If-Match` holds when it is `*` or names the resource's
 * current entity tag; versions are weak tags, compared by their opaque part (weak comparison).
 */
export function preconditionHolds(ifMatch: string | undefined, version: number): boolean {
  if (ifMatch === undefined) return true;
  return tagsOf(ifMatch).some((tag) => tag === '*' || tag === String(version));
}

/** `If-None-Match` on a read: true when the client's copy is current (304). */
export function notModified(ifNoneMatch: string | undefined, version: number): boolean {
  return ifNoneMatch !== undefined && tagsOf(ifNoneMatch).some((tag) => tag === '*' || tag === String(version));
}

/** The opaque parts of a list of entity tags (`W/"3", "4"`), `*` kept as it is. */
const tagsOf = (header: string) =>
  header
    .split(',')
    .map((t) => t.trim())
    .map((t) => (t === '*' ? t : t.replace(/^W\//, '').replace(/^"(.*)"$/, '$1')));
