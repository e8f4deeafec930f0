import type { CheckResult } from './checks.ts';
import { isJsonObject, stringOf, arrayOf, memberAt } from '../../untrusted/json.ts';

/**
 * The named checks `scim/check-server` holds a SCIM service provider to, each a function of the
 * answers it saw, with the section that makes the rule (RFC 7643, RFC 7644, RFC 9865).
 */
export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

const SPC = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

const judged = (check: string, rule: string, problems: string[], good: string): CheckResult => ({
  check,
  rule,
  verdict: problems.length === 0 ? 'passed' : 'failed',
  detail: problems.length === 0 ? good : problems.join('; '),
});

export const notApplicable = (check: string, rule: string, why: string): CheckResult => ({
  check,
  rule,
  verdict: 'not_applicable',
  detail: why,
});

const names = (v: unknown, name: string) => arrayOf(memberAt(v, 'schemas')).includes(name);
const statusIs = (a: Answer, expected: number[], problems: string[]) => {
  if (!expected.includes(a.status)) problems.push(`HTTP ${a.status}, not ${expected.join(' or ')}`);
};

/** What the configuration says is supported; absent members count as not supported. */
export function featuresOf(config: unknown) {
  const on = (name: string) => memberAt(config, name, 'supported') === true;
  return {
    patch: on('patch'),
    filter: on('filter'),
    etag: on('etag'),
    sort: on('sort'),
    bulk: on('bulk'),
    cursor: memberAt(config, 'pagination', 'cursor') === true,
  };
}

/** RFC 7643 §5: the configuration names its schema and says, for each feature, whether it is supported. */
export function serviceProviderConfig(a: Answer): CheckResult {
  const problems: string[] = [];
  statusIs(a, [200], problems);
  const body = a.body;
  if (!isJsonObject(body)) problems.push('the body is not a JSON object');
  else {
    if (!names(body, SPC)) problems.push(`schemas does not name ${SPC}`);
    for (const name of ['patch', 'bulk', 'filter', 'changePassword', 'sort', 'etag'])
      if (typeof memberAt(body, name, 'supported') !== 'boolean')
        problems.push(`${name}.supported is not a boolean (RFC 7643 §5 says it is required)`);
    if (!Array.isArray(body.authenticationSchemes)) problems.push('authenticationSchemes is not an array');
  }
  return judged(
    'service provider configuration',
    'RFC 7643 §5',
    problems,
    'every feature states whether it is supported',
  );
}

/** RFC 7644 §4: the discovery endpoints answer a ListResponse (or the resource), here with a User type or schema. */
export function discoveryList(a: Answer, check: string, rule: string, userOf: (r: unknown) => boolean): CheckResult {
  const problems: string[] = [];
  statusIs(a, [200], problems);
  const listed = memberAt(a.body, 'Resources');
  const resources = Array.isArray(listed) ? listed : Array.isArray(a.body) ? arrayOf(a.body) : undefined;
  if (!resources) problems.push('neither a ListResponse nor an array');
  else if (!resources.some(userOf)) problems.push('no User among them');
  return judged(check, rule, problems, 'lists the User with its endpoint and schema');
}

/** RFC 7644 §3.1: SCIM messages are `application/scim+json`. */
export function mediaType(answers: Answer[]): CheckResult {
  const wrong = answers
    .map((a) => a.headers.get('content-type') ?? '(none)')
    .filter((t) => !t.startsWith('application/scim+json'));
  return judged(
    'media type',
    'RFC 7644 §3.1',
    wrong.length ? [`answered ${[...new Set(wrong)].join(', ')}`] : [],
    'every answer is application/scim+json',
  );
}

/** RFC 7644 §3.3: 201, the resource with `id` and `meta.location`, and the same location in the Location header. */
export function created(a: Answer, userName: string): CheckResult {
  const problems: string[] = [];
  statusIs(a, [201], problems);
  if (typeof memberAt(a.body, 'id') !== 'string') problems.push('no id in the body');
  else {
    if (stringOf(memberAt(a.body, 'userName'))?.toLowerCase() !== userName.toLowerCase())
      problems.push('the body names another userName');
    const location = stringOf(memberAt(a.body, 'meta', 'location'));
    if (location === undefined) problems.push('no meta.location');
    else if (a.headers.get('location') !== location)
      problems.push(`Location header ${a.headers.get('location') ?? '(none)'} is not meta.location`);
  }
  return judged('create', 'RFC 7644 §3.3', problems, '201 with id, meta.location and the same Location header');
}

/** RFC 7644 §3.4.1: the resource read by its id is the one created. */
export function readBack(a: Answer, id: string, userName: string): CheckResult {
  const problems: string[] = [];
  statusIs(a, [200], problems);
  if (memberAt(a.body, 'id') !== id) problems.push('another id, or none');
  else if (stringOf(memberAt(a.body, 'userName'))?.toLowerCase() !== userName.toLowerCase())
    problems.push('another userName');
  return judged('read back', 'RFC 7644 §3.4.1', problems, 'the same id and userName');
}

/** RFC 7644 §3.12 (and §3.3): a second user of the same userName is 409 with scimType uniqueness. */
export function uniqueness(a: Answer): CheckResult {
  const problems: string[] = [];
  statusIs(a, [409], problems);
  const scimType = memberAt(a.body, 'scimType');
  if (a.status === 409 && scimType !== 'uniqueness')
    problems.push(`scimType is ${JSON.stringify(scimType)}, not uniqueness`);
  return judged('uniqueness', 'RFC 7644 §3.12', problems, '409 uniqueness');
}

/** RFC 7644 §3.4.2: a ListResponse whose resources are exactly `ids`, in any order. */
export function listHolds(a: Answer, ids: string[], check: string, rule: string): CheckResult {
  const problems: string[] = [];
  statusIs(a, [200], problems);
  if (!names(a.body, LIST)) problems.push(`schemas does not name ${LIST}`);
  const found = arrayOf(memberAt(a.body, 'Resources')).map((r) => memberAt(r, 'id'));
  if (found.length !== ids.length || ids.some((id) => !found.includes(id)))
    problems.push(`found ${found.length} resource(s), not the ${ids.length} expected`);
  const total = memberAt(a.body, 'totalResults');
  if (total !== ids.length) problems.push(`totalResults is ${JSON.stringify(total)}, not ${ids.length}`);
  return judged(check, rule, problems, `a ListResponse of the ${ids.length} expected resource(s)`);
}

/** RFC 7644 §3.12: an Error message of `status` (a string) and, where named, `scimType`. */
export function errorOf(
  a: Answer,
  status: number,
  scimType: string | undefined,
  check: string,
  rule: string,
): CheckResult {
  const problems: string[] = [];
  statusIs(a, [status], problems);
  if (!names(a.body, ERROR)) problems.push(`schemas does not name ${ERROR}`);
  else {
    const said = memberAt(a.body, 'status');
    if (said !== String(status)) problems.push(`status is ${JSON.stringify(said)}, not "${status}" (a string)`);
    const type = memberAt(a.body, 'scimType');
    if (scimType && type !== scimType) problems.push(`scimType is ${JSON.stringify(type)}, not ${scimType}`);
  }
  return judged(check, rule, problems, `${status}${scimType ? ` ${scimType}` : ''} as an Error message`);
}

/** RFC 7644 §3.5.2: the PATCH answered 200 or 204, and the resource read after holds `expect`. */
export function patchApplied(
  a: Answer,
  after: Answer,
  holds: (r: unknown) => boolean,
  check: string,
  rule: string,
  good: string,
): CheckResult {
  const problems: string[] = [];
  statusIs(a, [200, 204], problems);
  if (!holds(after.body)) problems.push('the resource read after does not show the change');
  return judged(check, rule, problems, good);
}

/** RFC 7644 §3.14: a version, a refusal of a stale one (412), and 304 for a current copy. */
export function versions(read: Answer, stale: Answer, notModified: Answer): CheckResult {
  const problems: string[] = [];
  const etag = read.headers.get('etag') ?? memberAt(read.body, 'meta', 'version');
  if (!etag) problems.push('neither an ETag header nor meta.version');
  if (stale.status !== 412) problems.push(`a stale If-Match got HTTP ${stale.status}, not 412`);
  if (notModified.status !== 304) problems.push(`a current If-None-Match got HTTP ${notModified.status}, not 304`);
  return judged(
    'versions',
    'RFC 7644 §3.14',
    problems,
    'ETag, 412 on a stale If-Match, 304 on a current If-None-Match',
  );
}

/** RFC 7644 §3.4.2.4: startIndex and count select one page, and the response says so. */
export function indexPage(a: Answer, total: number): CheckResult {
  const problems: string[] = [];
  statusIs(a, [200], problems);
  const [totalResults, startIndex] = [memberAt(a.body, 'totalResults'), memberAt(a.body, 'startIndex')];
  if (totalResults !== total) problems.push(`totalResults ${JSON.stringify(totalResults)}, not ${total}`);
  if (startIndex !== 2) problems.push(`startIndex ${JSON.stringify(startIndex)}, not 2`);
  if (memberAt(a.body, 'itemsPerPage') !== 1 || arrayOf(memberAt(a.body, 'Resources')).length !== 1)
    problems.push('not one resource on the page');
  return judged(
    'index pagination',
    'RFC 7644 §3.4.2.4',
    problems,
    'startIndex=2&count=1: the second of three, totals right',
  );
}

/** RFC 9865 §2: cursors walk every result once; the last page has no nextCursor. */
export function cursorPages(pages: Answer[], ids: string[]): CheckResult {
  const problems: string[] = [];
  const seen = pages.flatMap((p) => arrayOf(memberAt(p.body, 'Resources')).map((r) => memberAt(r, 'id')));
  if (pages.some((p) => p.status !== 200)) problems.push('a page was not HTTP 200');
  if (seen.length !== ids.length || ids.some((id) => !seen.includes(id)))
    problems.push(`walked ${seen.length} resource(s), not the ${ids.length}`);
  if (memberAt(pages.at(-1)?.body, 'nextCursor') !== undefined) problems.push('the last page still has a nextCursor');
  return judged('cursor pagination', 'RFC 9865 §2', problems, 'every result once, the last page without nextCursor');
}

/** RFC 7644 §3.6: 204, then the resource is 404. */
export function deleted(a: Answer, after: Answer): CheckResult {
  const problems: string[] = [];
  statusIs(a, [204], problems);
  statusIs(after, [404], problems);
  return judged('delete', 'RFC 7644 §3.6', problems, '204, then 404');
}
