import { FlowFailure, expectStatus, type FlowRunners, type RunContext } from '../registry.ts';
import { managementToken } from './ssf.ts';
import { stringOf, arrayOf, memberAt } from '../../untrusted/json.ts';
import {
  ownScimEndpoint,
  patchOf,
  runUserName,
  scimCaller,
  SCIM_BULK,
  SCIM_GROUP,
  SCIM_USER,
  type ScimCall,
} from './scim-client.ts';

const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';

/** A new user of the run's own, with a work email. */
async function createUser(call: ScimCall, label: string): Promise<{ id: string; userName: string; email: string }> {
  const userName = runUserName(label);
  const created = await call('Create a user', 'POST', '/Users', {
    body: {
      schemas: [SCIM_USER],
      userName,
      name: { givenName: label, familyName: 'Demo' },
      emails: [{ value: `${userName}@example.com`, type: 'work', primary: true }],
    },
    notes: ['RFC 7644 §3.3: 201 with the resource, its id, meta.location and the Location header'],
  });
  expectStatus(created.status, 201, 'user creation');
  const id = stringOf(memberAt(created.body, 'id'));
  if (!id) throw new FlowFailure('the created user has no id');
  return { id, userName, email: `${userName}@example.com` };
}

async function provision(run: RunContext): Promise<void> {
  const call = scimCaller(run, await ownScimEndpoint(run));
  const config = await call('Service provider configuration', 'GET', '/ServiceProviderConfig', {
    notes: ['RFC 7643 §5: what the service provider supports (patch, filter, etag, bulk, sort)'],
  });
  expectStatus(config.status, 200, 'configuration');
  const user = await createUser(call, 'provisioned');
  const read = await call('Read it back', 'GET', `/Users/${user.id}`, {
    notes: ['RFC 7644 §3.4.1: the resource by its id, with its version (ETag, meta.version)'],
  });
  expectStatus(read.status, 200, 'read');
  const patched = await call('Patch it', 'PATCH', `/Users/${user.id}`, {
    body: patchOf(
      { op: 'replace', path: 'emails[type eq "work"].value', value: `${user.userName}@corp.example` },
      { op: 'add', path: 'title', value: 'Provisioned by a flow' },
    ),
    headers: { 'if-match': read.headers.get('etag') ?? '*' },
    notes: [
      'RFC 7644 §3.5.2: a value path selects the work email; add sets the title',
      'RFC 7644 §3.14: If-Match names the version read, so a change made meanwhile is not overwritten',
    ],
  });
  expectStatus(patched.status, 200, 'patch');
  const filter = encodeURIComponent(`userName eq "${String(user.userName).toUpperCase()}"`);
  const found = await call('Find it by a filter', 'GET', `/Users?filter=${filter}`, {
    notes: ['RFC 7644 §3.4.2.2: userName is caseExact false, so the upper-case name finds it'],
  });
  if (memberAt(found.body, 'totalResults') !== 1) throw new FlowFailure('the filter did not find the user');
  expectStatus(
    (await call('Delete it', 'DELETE', `/Users/${user.id}`, { notes: ['RFC 7644 §3.6: 204'] })).status,
    204,
    'delete',
  );
  const gone = await call('Read it again', 'GET', `/Users/${user.id}`, {
    notes: ['RFC 7644 §3.6: a deleted resource is 404, in the error shape of §3.12'],
  });
  expectStatus(gone.status, 404, 'read after delete');
}

async function groupMembership(run: RunContext): Promise<void> {
  const call = scimCaller(run, await ownScimEndpoint(run));
  const first = await createUser(call, 'member');
  const second = await createUser(call, 'member');
  const created = await call('Create a group with one member', 'POST', '/Groups', {
    body: { schemas: [SCIM_GROUP], displayName: runUserName('team'), members: [{ value: first.id }] },
    notes: ['RFC 7643 §4.2: members name users (or groups) of the same service provider by id'],
  });
  expectStatus(created.status, 201, 'group creation');
  const group = { id: stringOf(memberAt(created.body, 'id')) ?? '' };
  const added = await call('Add the second member', 'PATCH', `/Groups/${group.id}`, {
    body: patchOf({ op: 'add', path: 'members', value: [{ value: second.id }] }),
    notes: ['RFC 7644 §3.5.2.1: add to a multi-valued attribute joins the values'],
  });
  expectStatus(added.status, 200, 'add member');
  const read = await call("Read the member's groups", 'GET', `/Users/${second.id}?attributes=groups`, {
    notes: ['RFC 7643 §4.1.2: groups is readOnly, derived from the groups that hold the user'],
  });
  if (!arrayOf(memberAt(read.body, 'groups')).some((g) => memberAt(g, 'value') === group.id))
    throw new FlowFailure("the user's groups do not show the group");
  const removed = await call('Remove the first member', 'PATCH', `/Groups/${group.id}`, {
    body: patchOf({ op: 'remove', path: `members[value eq "${first.id}"]` }),
    notes: ['RFC 7644 §3.5.2.2: a value filter removes only the matching member'],
  });
  expectStatus(removed.status, 200, 'remove member');
  if (arrayOf(memberAt(removed.body, 'members')).length !== 1) throw new FlowFailure('one member should remain');
  for (const id of [first.id, second.id]) await call('Clean up', 'DELETE', `/Users/${id}`);
  await call('Clean up', 'DELETE', `/Groups/${group.id}`);
}

async function deprovisionAndSignal(run: RunContext): Promise<void> {
  const call = scimCaller(run, await ownScimEndpoint(run));
  const ssf = await managementToken(run);
  const user = await createUser(call, 'leaver');
  const email = user.email;
  const stream = await run.http.send(
    'Create a poll stream',
    `${run.base}/ssf/streams`,
    { json: { events_requested: [`${RISC}account-disabled`, `${RISC}account-purged`] }, headers: ssf },
    ['SSF 1.0 §8.1.1.1: the receiver asks for RISC account-disabled and account-purged'],
  );
  expectStatus(stream.status, 201, 'stream');
  const streamId = stringOf(memberAt(stream.body, 'stream_id')) ?? '';
  const subject = await run.http.send(
    "Add the user's email as a subject",
    `${run.base}/ssf/subjects:add`,
    { json: { stream_id: streamId, subject: { format: 'email', email } }, headers: ssf },
    ['RFC 9493 §3.2.2: an email subject; SCIM users are signalled by email, or by their scim subject'],
  );
  expectStatus(subject.status, 200, 'subject');
  const disabled = await call('Deactivate the user', 'PATCH', `/Users/${user.id}`, {
    body: patchOf({ op: 'replace', path: 'active', value: false }),
    notes: ['RFC 7643 §4.1.1: active false; the service signals RISC account-disabled (RISC 1.0 §2.3)'],
  });
  expectStatus(disabled.status, 200, 'deactivation');
  for (let attempt = 0; ; attempt++) {
    const polled = await run.http.send(
      'Poll the stream',
      `${run.base}/ssf/poll/${streamId}`,
      { json: { returnImmediately: true }, headers: ssf },
      ['RFC 8936 §2.4: the SET of the deactivation, about the email'],
    );
    expectStatus(polled.status, 200, 'poll');
    const sets = memberAt(polled.body, 'sets');
    const jtis = sets && typeof sets === 'object' ? Object.keys(sets) : [];
    if (jtis.length > 0) {
      await run.http.send('Acknowledge', `${run.base}/ssf/poll/${streamId}`, {
        json: { returnImmediately: true, ack: jtis },
        headers: ssf,
      });
      break;
    }
    if (attempt >= 20) throw new FlowFailure('no SET arrived for the deactivation');
    await run.wait(100);
  }
  await call('Delete the user', 'DELETE', `/Users/${user.id}`, {
    notes: ['RFC 7644 §3.6; the service signals RISC account-purged (RISC 1.0 §2.2)'],
  });
}

async function bulk(run: RunContext): Promise<void> {
  const call = scimCaller(run, await ownScimEndpoint(run));
  const userName = runUserName('bulk');
  const answer = await call('One bulk request', 'POST', '/Bulk', {
    body: {
      schemas: [SCIM_BULK],
      failOnErrors: 1,
      Operations: [
        { method: 'POST', bulkId: 'user', path: '/Users', data: { schemas: [SCIM_USER], userName } },
        {
          method: 'POST',
          bulkId: 'group',
          path: '/Groups',
          data: { schemas: [SCIM_GROUP], displayName: runUserName('bulk-team'), members: [{ value: 'bulkId:user' }] },
        },
      ],
    },
    notes: [
      'RFC 7644 §3.7: operations in one request; bulkId:user names the user the first operation creates',
      'RFC 7644 §3.7.3: failOnErrors 1 stops at the first error',
    ],
  });
  expectStatus(answer.status, 200, 'bulk');
  const ops = arrayOf(memberAt(answer.body, 'Operations')).map((o) => ({
    status: stringOf(memberAt(o, 'status')),
    location: stringOf(memberAt(o, 'location')) ?? '',
  }));
  if (ops.map((o) => o.status).join() !== '201,201') throw new FlowFailure('both operations should create');
  const group = await call('Read the group', 'GET', ops[1].location, {
    notes: ["The member's value is the new user's id, in place of bulkId:user"],
  });
  expectStatus(group.status, 200, 'group');
  for (const o of ops.reverse()) await call('Clean up', 'DELETE', o.location);
}

export function registerScimRunners(runners: FlowRunners): void {
  runners.register('scim', 'provision', provision);
  runners.register('scim', 'group-membership', groupMembership);
  runners.register('scim', 'deprovision-and-signal', deprovisionAndSignal);
  runners.register('scim', 'bulk', bulk);
}
