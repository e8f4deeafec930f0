import { FlowFailure, type FlowRunners, type RunContext } from '../registry.ts';
import { ownScimEndpoint, patchOf, runUserName, scimCaller, SCIM_USER, type ScimCall } from '../runners/scim-client.ts';
import * as checks from './scim-checks.ts';
import { stringOf, arrayOf, memberAt } from '../../untrusted/json.ts';

const PATCH_RULE = 'RFC 7644 §3.5.2';

/**
 * `scim/check-server`: named checks against a SCIM service provider, our own by default or the user's
 * (`{"target": {base_url, token}}`, every request through the outbound guard). Each verdict is a
 * `run.check_recorded` event; a feature the server says it lacks is `not_applicable`. The run makes
 * its own users and deletes them at the end.
 */
async function checkServer(run: RunContext): Promise<void> {
  const endpoint = run.scimTarget
    ? { base: run.scimTarget.baseUrl, token: run.scimTarget.token }
    : await ownScimEndpoint(run);
  const call = scimCaller(run, endpoint);
  const record = (result: Parameters<RunContext['check']>[0]) => run.check(result);

  const config = await call('Service provider configuration', 'GET', '/ServiceProviderConfig');
  await record(checks.serviceProviderConfig(config));
  const features = checks.featuresOf(config.body);
  const isUser = (r: unknown) =>
    memberAt(r, 'name') === 'User' || memberAt(r, 'id') === SCIM_USER || memberAt(r, 'endpoint') === '/Users';
  await record(
    checks.discoveryList(
      await call('Resource types', 'GET', '/ResourceTypes'),
      'resource types',
      'RFC 7643 §6',
      isUser,
    ),
  );
  await record(checks.discoveryList(await call('Schemas', 'GET', '/Schemas'), 'schemas', 'RFC 7643 §7', isUser));

  const prefix = runUserName('check');
  const userName = `${prefix}.a`;
  const made = await call('Create a user', 'POST', '/Users', { body: userBody(userName) });
  await record(checks.created(made, userName));
  const id = stringOf(memberAt(made.body, 'id'));
  if (made.status !== 201 || id === undefined)
    throw new FlowFailure('The server made no user; the other checks need one');
  const read = await call('Read it back', 'GET', `/Users/${id}`);
  await record(checks.readBack(read, id, userName));
  await record(checks.mediaType([config, made, read]));
  await record(
    checks.uniqueness(await call('Create the same userName again', 'POST', '/Users', { body: userBody(userName) })),
  );

  await filters(call, record, features.filter, id, userName);
  await patches(call, record, features.patch, id);
  await versions(call, record, features.etag, id);
  const others = [];
  for (const suffix of ['b', 'c']) {
    const other = await call('Create another user', 'POST', '/Users', { body: userBody(`${prefix}.${suffix}`) });
    const otherId = stringOf(memberAt(other.body, 'id'));
    if (otherId !== undefined) others.push(otherId);
  }
  await pages(call, record, features, prefix, [id, ...others]);

  await record(
    checks.errorOf(
      await call('Read a user that is not there', 'GET', `/Users/${runUserName('absent')}`),
      404,
      undefined,
      'error shape',
      'RFC 7644 §3.12',
    ),
  );
  const removed = await call('Delete the user', 'DELETE', `/Users/${id}`);
  await record(checks.deleted(removed, await call('Read it after', 'GET', `/Users/${id}`)));
  for (const other of others) await call('Clean up', 'DELETE', `/Users/${other}`);
}

const userBody = (userName: string) => ({
  schemas: [SCIM_USER],
  userName,
  displayName: userName,
  emails: [{ value: `${userName}@example.com`, type: 'work', primary: true }],
});

type RecordCheck = (result: Parameters<RunContext['check']>[0]) => Promise<void>;
const filterQuery = (filter: string) => `/Users?filter=${encodeURIComponent(filter)}`;

async function filters(
  call: ScimCall,
  record: RecordCheck,
  supported: boolean,
  id: string,
  userName: string,
): Promise<void> {
  const rule = 'RFC 7644 §3.4.2.2';
  if (!supported) {
    for (const check of ['filter eq', 'filter case', 'invalid filter'])
      await record(checks.notApplicable(check, rule, 'filter.supported is false'));
    return;
  }
  await record(
    checks.listHolds(
      await call('Filter by userName', 'GET', filterQuery(`userName eq "${userName}"`)),
      [id],
      'filter eq',
      rule,
    ),
  );
  const upper = await call(
    'Filter by userName in upper case',
    'GET',
    filterQuery(`userName eq "${userName.toUpperCase()}"`),
  );
  await record(checks.listHolds(upper, [id], 'filter case', 'RFC 7643 §4.1.1 (userName caseExact false)'));
  const invalid = await call('An invalid filter', 'GET', filterQuery('userName eq'));
  await record(checks.errorOf(invalid, 400, 'invalidFilter', 'invalid filter', rule));
}

async function patches(call: ScimCall, record: RecordCheck, supported: boolean, id: string): Promise<void> {
  if (!supported) {
    for (const check of ['patch replace', 'patch value path', 'patch remove'])
      await record(checks.notApplicable(check, PATCH_RULE, 'patch.supported is false'));
    return;
  }
  const replaced = await call('PATCH replace', 'PATCH', `/Users/${id}`, {
    body: patchOf({ op: 'replace', path: 'displayName', value: 'Checked' }),
  });
  const afterReplace = await call('Read after the replace', 'GET', `/Users/${id}`);
  await record(
    checks.patchApplied(
      replaced,
      afterReplace,
      (r) => memberAt(r, 'displayName') === 'Checked',
      'patch replace',
      'RFC 7644 §3.5.2.3',
      'displayName replaced',
    ),
  );
  const emailed = await call('PATCH a value path', 'PATCH', `/Users/${id}`, {
    body: patchOf({ op: 'replace', path: 'emails[type eq "work"].value', value: 'checked@example.com' }),
  });
  const afterPath = await call('Read after the value path', 'GET', `/Users/${id}`);
  const workEmail = (r: unknown) =>
    memberAt(
      arrayOf(memberAt(r, 'emails')).find((e) => memberAt(e, 'type') === 'work'),
      'value',
    );
  await record(
    checks.patchApplied(
      emailed,
      afterPath,
      (r) => workEmail(r) === 'checked@example.com',
      'patch value path',
      PATCH_RULE,
      'emails[type eq "work"].value replaced',
    ),
  );
  const removed = await call('PATCH remove', 'PATCH', `/Users/${id}`, {
    body: patchOf({ op: 'remove', path: 'displayName' }),
  });
  const afterRemove = await call('Read after the remove', 'GET', `/Users/${id}`);
  await record(
    checks.patchApplied(
      removed,
      afterRemove,
      (r) => r !== undefined && memberAt(r, 'displayName') === undefined,
      'patch remove',
      'RFC 7644 §3.5.2.2',
      'displayName removed',
    ),
  );
}

async function versions(call: ScimCall, record: RecordCheck, supported: boolean, id: string): Promise<void> {
  if (!supported) return record(checks.notApplicable('versions', 'RFC 7644 §3.14', 'etag.supported is false'));
  const read = await call('Read with its version', 'GET', `/Users/${id}`);
  const etag = read.headers.get('etag') ?? stringOf(memberAt(read.body, 'meta', 'version')) ?? '';
  const stale = await call('PATCH with a stale If-Match', 'PATCH', `/Users/${id}`, {
    body: patchOf({ op: 'replace', path: 'title', value: 'stale' }),
    headers: { 'if-match': 'W/"portico-stale-version"' },
  });
  const notModified = await call('GET with a current If-None-Match', 'GET', `/Users/${id}`, {
    headers: { 'if-none-match': etag },
  });
  await record(checks.versions(read, stale, notModified));
}

async function pages(
  call: ScimCall,
  record: RecordCheck,
  features: ReturnType<typeof checks.featuresOf>,
  prefix: string,
  ids: string[],
): Promise<void> {
  if (!features.filter) {
    await record(
      checks.notApplicable(
        'index pagination',
        'RFC 7644 §3.4.2.4',
        'the page is taken of a filtered list; filter.supported is false',
      ),
    );
    await record(checks.notApplicable('cursor pagination', 'RFC 9865 §2', 'filter.supported is false'));
    return;
  }
  const filter = filterQuery(`userName sw "${prefix}"`);
  await record(
    checks.indexPage(await call('The second page of one', 'GET', `${filter}&startIndex=2&count=1`), ids.length),
  );
  if (!features.cursor)
    return record(checks.notApplicable('cursor pagination', 'RFC 9865 §2', 'pagination.cursor is not true'));
  const walked = [];
  let cursor = '';
  for (let i = 0; i <= ids.length; i++) {
    const page = await call('A page by cursor', 'GET', `${filter}&count=1&cursor=${encodeURIComponent(cursor)}`);
    walked.push(page);
    const next = stringOf(memberAt(page.body, 'nextCursor'));
    if (next === undefined) break;
    cursor = next;
  }
  await record(checks.cursorPages(walked, ids));
}

export function registerScimCheckServer(runners: FlowRunners): void {
  runners.register('scim', 'check-server', checkServer);
}
