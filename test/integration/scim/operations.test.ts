import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { expectScimError, GROUP, scimClient, scimToken, USER } from '../../support/scim.ts';

// Issue 48: PATCH, queries, versions and bulk at the SCIM service provider, over HTTP.
let server: TestServer;
let scim: ReturnType<typeof scimClient>;
beforeAll(async () => {
  server = await startMainServer();
  scim = scimClient(server.url, await scimToken(server));
});
afterAll(() => server.close());

const names = (answer: { body: any }) => answer.body.Resources.map((r: any) => r.userName);
const filtered = (filter: string, extra = '') =>
  scim.get(`/Users?filter=${encodeURIComponent(filter)}&sortBy=userName${extra}`);

describe('PATCH (RFC 7644 §3.5.2)', () => {
  it('[rfc7644-005] adds, replaces and removes, with paths and value filters', async () => {
    const user = await scim.createUser('pat.one', {
      emails: [
        { value: 'pat@work.example', type: 'work', primary: true },
        { value: 'pat@home.example', type: 'home' },
      ],
      name: { givenName: 'Pat', familyName: 'One' },
    });
    const patched = await scim.patch(`/Users/${user.id}`, [
      { op: 'replace', path: 'emails[type eq "work"].value', value: 'pat@new.example' },
      { op: 'add', path: 'phoneNumbers', value: [{ value: 'tel:+1-555-0111', type: 'mobile' }] },
      { op: 'remove', path: 'emails[type eq "home"]' },
      { op: 'replace', path: 'name.familyName', value: 'Uno' },
      {
        op: 'add',
        value: { title: 'Lead', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department': 'R&D' },
      },
      { op: 'Replace', path: 'displayName', value: 'Pat Uno' },
    ]);
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.emails).toEqual([{ value: 'pat@new.example', type: 'work', primary: true }]);
    expect(patched.body.phoneNumbers).toEqual([{ value: 'tel:+1-555-0111', type: 'mobile' }]);
    expect(patched.body.name).toEqual({ givenName: 'Pat', familyName: 'Uno' });
    expect(patched.body.title).toBe('Lead');
    expect(patched.body['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User']).toEqual({ department: 'R&D' });
    expect(patched.body.schemas).toContain('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User');
    expect(patched.body.meta.version).toBe('W/"2"');
  });

  it('[rfc7643-005] moves the primary flag to a value made primary (RFC 7643 §2.4)', async () => {
    const user = await scim.createUser('pat.two', { emails: [{ value: 'a@x.example', type: 'work', primary: true }] });
    const patched = await scim.patch(`/Users/${user.id}`, [
      { op: 'add', path: 'emails', value: [{ value: 'b@x.example', type: 'home', primary: true }] },
    ]);
    expect(patched.body.emails.filter((e: any) => e.primary === true).map((e: any) => e.value)).toEqual([
      'b@x.example',
    ]);
  });

  it('[rfc7644-006] is all or nothing, and refuses what RFC 7644 §3.5.2 refuses', async () => {
    const user = await scim.createUser('pat.three', { title: 'Before' });
    const at = `/Users/${user.id}`;
    const failing = await scim.patch(at, [
      { op: 'replace', path: 'title', value: 'After' },
      { op: 'replace', path: 'emails[type eq "work"].value', value: 'x@x.example' },
    ]);
    expectScimError(failing, 400, 'noTarget');
    expect((await scim.get(at)).body.title).toBe('Before');
    expectScimError(await scim.patch(at, [{ op: 'remove' }]), 400, 'noTarget');
    expectScimError(await scim.patch(at, [{ op: 'replace', path: 'emails[type eq', value: 'x' }]), 400);
    expectScimError(await scim.patch(at, [{ op: 'replace', path: 'shoeSize', value: 9 }]), 400, 'invalidPath');
    expectScimError(await scim.patch(at, [{ op: 'replace', path: 'id', value: 'mine' }]), 400, 'mutability');
    expectScimError(await scim.patch(at, [{ op: 'add', path: 'groups', value: [{ value: 'g' }] }]), 400, 'mutability');
    expectScimError(await scim.patch(at, [{ op: 'remove', path: 'userName' }]), 400, 'mutability');
    expectScimError(await scim.patch(at, [{ op: 'move', path: 'title' }]), 400, 'invalidSyntax');
    const wrongSchema = await fetch(`${server.url}/scim/v2${at}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${await scimToken(server)}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify({ Operations: [{ op: 'remove', path: 'title' }] }),
    });
    expect(wrongSchema.status).toBe(400);
  });
});

describe('filters, sorting and pages (RFC 7644 §3.4.2, RFC 9865)', () => {
  beforeAll(async () => {
    await scim.createUser('q.alpha', { title: 'Dev', emails: [{ value: 'alpha@corp.example', type: 'work' }] });
    await scim.createUser('q.beta', {
      title: 'Ops',
      active: false,
      emails: [{ value: 'beta@home.example', type: 'home' }],
    });
    await scim.createUser('Q.Gamma', { title: 'dev', emails: [{ value: 'gamma@corp.example', type: 'work' }] });
  });

  it('[rfc7644-007] evaluates every operator, by each attribute type', async () => {
    expect(names(await filtered('userName sw "q."'))).toEqual(['q.alpha', 'q.beta', 'Q.Gamma']);
    expect(names(await filtered('userName eq "Q.ALPHA"'))).toEqual(['q.alpha']);
    expect(names(await filtered('userName ew "MA" and userName co "gam"'))).toEqual(['Q.Gamma']);
    expect(names(await filtered('userName sw "q." and title ne "dev"'))).toEqual(['q.beta']);
    expect(names(await filtered('userName sw "q." and active eq false'))).toEqual(['q.beta']);
    expect(names(await filtered('userName sw "q." and not (title eq "Dev")'))).toEqual(['q.beta']);
    expect(names(await filtered('emails[type eq "work" and value co "corp"]'))).toEqual(['q.alpha', 'Q.Gamma']);
    expect(names(await filtered('userName sw "q." and (emails.type eq "home" or title eq "DEV")'))).toEqual([
      'q.alpha',
      'q.beta',
      'Q.Gamma',
    ]);
    expect(names(await filtered('userName sw "q." and nickName pr'))).toEqual([]);
    expect(names(await filtered('userName sw "q." and meta.created gt "2000-01-01T00:00:00Z"'))).toHaveLength(3);
    expect(names(await filtered('userName gt "q.b" and userName lt "r"'))).toEqual(['q.beta', 'Q.Gamma']);
    const byUrn = await filtered('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "q.beta"');
    expect(names(byUrn)).toEqual(['q.beta']);
  });

  it('[rfc7644-008] refuses filters that do not parse or cannot apply: 400 invalidFilter', async () => {
    for (const bad of [
      'userName eq',
      'shoeSize eq 9',
      'active gt true',
      'userName eq 5',
      '((userName pr)',
      'emails[type eq "x"',
    ])
      expectScimError(await filtered(bad), 400, 'invalidFilter');
    expectScimError(await filtered('('.repeat(40) + 'userName pr' + ')'.repeat(40)), 400, 'invalidFilter');
  });

  it('[rfc7644-009] sorts both ways, and pages by index', async () => {
    const desc = await filtered('userName sw "q."', '&sortOrder=descending');
    expect(names(desc)).toEqual(['Q.Gamma', 'q.beta', 'q.alpha']);
    const second = await filtered('userName sw "q."', '&startIndex=2&count=1');
    expect(second.body).toMatchObject({ totalResults: 3, itemsPerPage: 1, startIndex: 2 });
    expect(names(second)).toEqual(['q.beta']);
    expect((await filtered('userName sw "q."', '&count=0')).body).toMatchObject({ totalResults: 3, itemsPerPage: 0 });
    expectScimError(await filtered('userName sw "q."', '&startIndex=two'), 400, 'invalidValue');
  });

  it('[rfc9865-001] pages by cursor until the last page, and refuses a cursor of another query', async () => {
    const seen: string[] = [];
    let cursor = '';
    for (let pageNo = 0; pageNo < 5; pageNo++) {
      const page = await filtered('userName sw "q."', `&count=2&cursor=${encodeURIComponent(cursor)}`);
      expect(page.status).toBe(200);
      expect(page.body.startIndex).toBeUndefined();
      seen.push(...names(page));
      if (!page.body.nextCursor) break;
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual(['q.alpha', 'q.beta', 'Q.Gamma']);
    expectScimError(await filtered('userName pr', `&cursor=${encodeURIComponent(cursor)}`), 400, 'invalidCursor');
    expectScimError(await filtered('userName pr', '&cursor=&startIndex=1'), 400, 'invalidValue');
  });

  it('[rfc7644-010] returns only the attributes asked for, or all but the excluded ones (RFC 7644 §3.9)', async () => {
    const only = await filtered('userName eq "q.alpha"', '&attributes=userName,emails.value');
    expect(only.body.Resources[0]).toEqual({
      schemas: [USER],
      id: only.body.Resources[0].id,
      userName: 'q.alpha',
      emails: [{ value: 'alpha@corp.example' }],
    });
    const without = await filtered('userName eq "q.alpha"', '&excludedAttributes=emails,meta,id');
    expect(without.body.Resources[0].emails).toBeUndefined();
    expect(without.body.Resources[0].meta).toBeUndefined();
    expect(without.body.Resources[0].id).toBeDefined();
  });

  it('[rfc7644-011] searches by POST /.search, per type and across types (RFC 7644 §3.4.3)', async () => {
    const search = {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
      filter: 'userName sw "q."',
      count: 2,
      attributes: ['userName'],
    };
    const perType = await scim.post('/Users/.search', search);
    expect(perType.body.totalResults).toBe(3);
    expect(perType.body.Resources).toHaveLength(2);
    const everywhere = await scim.post('/.search', {
      ...search,
      filter: 'displayName eq "Engineering" or userName eq "q.beta"',
      count: 10,
    });
    expect(everywhere.body.totalResults).toBe(2);
    expectScimError(await scim.post('/.search', { filter: 'userName pr' }), 400, 'invalidSyntax');
  });
});

describe('versions (RFC 7644 §3.14)', () => {
  it('[rfc7644-012] refuses a stale If-Match with 412, takes the current one and *, and answers 304 to a current If-None-Match', async () => {
    const user = await scim.createUser('v.one');
    const at = `/Users/${user.id}`;
    expect((await scim.get(at, { 'if-none-match': 'W/"1"' })).status).toBe(304);
    expect((await scim.get(at, { 'if-none-match': 'W/"7"' })).status).toBe(200);
    const ok = await scim.patch(at, [{ op: 'replace', path: 'title', value: 'A' }], { 'if-match': 'W/"1"' });
    expect(ok.headers.get('etag')).toBe('W/"2"');
    expectScimError(await scim.patch(at, [{ op: 'replace', path: 'title', value: 'B' }], { 'if-match': 'W/"1"' }), 412);
    expectScimError(await scim.put(at, { schemas: [USER], userName: 'v.one' }, { 'if-match': 'W/"1"' }), 412);
    expectScimError(await scim.delete(at, { 'if-match': 'W/"1"' }), 412);
    expect((await scim.put(at, { schemas: [USER], userName: 'v.one' }, { 'if-match': '*' })).status).toBe(200);
    expect((await scim.delete(at, { 'if-match': 'W/"3"' })).status).toBe(204);
  });
});

describe('bulk (RFC 7644 §3.7)', () => {
  const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';

  it('[rfc7644-013] resolves bulkId references in any order and reports each operation', async () => {
    const answer = await scim.post('/Bulk', {
      schemas: [BULK],
      Operations: [
        {
          method: 'POST',
          bulkId: 'team',
          path: '/Groups',
          data: { schemas: [GROUP], displayName: 'Bulk team', members: [{ value: 'bulkId:lee' }] },
        },
        { method: 'POST', bulkId: 'lee', path: '/Users', data: { schemas: [USER], userName: 'bulk.lee' } },
        {
          method: 'PATCH',
          path: '/Users/bulkId:lee',
          data: {
            schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
            Operations: [{ op: 'add', path: 'title', value: 'Bulked' }],
          },
        },
        { method: 'DELETE', path: '/Users/no-such-user' },
      ],
    });
    expect(answer.status).toBe(200);
    const ops = answer.body.Operations;
    expect(ops.map((o: any) => o.status)).toEqual(['201', '201', '200', '404']);
    expect(ops[3].response.scimType).toBeUndefined();
    const team = await scim.get(new URL(ops[0].location).pathname.replace('/scim/v2', ''));
    const lee = await scim.userNamed('bulk.lee');
    expect(team.body.members[0].value).toBe(lee.id);
    expect(lee.title).toBe('Bulked');
  });

  it('[rfc7644-014] stops after failOnErrors errors, and refuses a circle of references', async () => {
    const answer = await scim.post('/Bulk', {
      schemas: [BULK],
      failOnErrors: 1,
      Operations: [
        { method: 'POST', bulkId: 'a', path: '/Users', data: { schemas: [USER] } },
        { method: 'POST', bulkId: 'b', path: '/Users', data: { schemas: [USER], userName: 'never.made' } },
      ],
    });
    expect(answer.body.Operations.map((o: any) => o.status)).toEqual(['400']);
    expect(await scim.userNamed('never.made')).toBeUndefined();
    const circle = await scim.post('/Bulk', {
      schemas: [BULK],
      Operations: [
        {
          method: 'POST',
          bulkId: 'x',
          path: '/Groups',
          data: { schemas: [GROUP], displayName: 'X', members: [{ value: 'bulkId:y' }] },
        },
        {
          method: 'POST',
          bulkId: 'y',
          path: '/Groups',
          data: { schemas: [GROUP], displayName: 'Y', members: [{ value: 'bulkId:x' }] },
        },
      ],
    });
    expect(circle.body.Operations.map((o: any) => o.status)).toEqual(['409', '409']);
  });

  it('[rfc7644-015] enforces the advertised limits with 413', async () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ method: 'DELETE', path: `/Users/u${i}` }));
    expectScimError(await scim.post('/Bulk', { schemas: [BULK], Operations: many }), 413);
    const huge = {
      schemas: [BULK],
      Operations: [
        {
          method: 'POST',
          bulkId: 'h',
          path: '/Users',
          data: { schemas: [USER], userName: 'h', title: 'x'.repeat(1_100_000) },
        },
      ],
    };
    expectScimError(await scim.post('/Bulk', huge), 413);
  });
});

describe('bad input never 500s', () => {
  it('answers fuzzed bodies, paths and queries on every SCIM route in the SCIM error shape', async () => {
    const token = await scimToken(server);
    const user = await scim.createUser('fuzz.target');
    const routes = [
      ['POST', '/Users'],
      ['PUT', `/Users/${user.id}`],
      ['PATCH', `/Users/${user.id}`],
      ['POST', '/Groups'],
      ['POST', '/Agents'],
      ['POST', '/Bulk'],
      ['POST', '/.search'],
      ['GET', '/Users'],
    ] as const;
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ schemas: fc.constant([USER]), userName: fc.string(), emails: fc.jsonValue({ maxDepth: 2 }) }),
      fc.record({
        schemas: fc.constant(['urn:ietf:params:scim:api:messages:2.0:PatchOp']),
        Operations: fc.array(
          fc.record({
            op: fc.constantFrom('add', 'remove', 'replace', 'x'),
            path: fc.string(),
            value: fc.jsonValue({ maxDepth: 2 }),
          }),
          { maxLength: 3 },
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, fc.string({ maxLength: 30 }), async ([method, path], b, q) => {
        const query = method === 'GET' ? `?filter=${encodeURIComponent(q)}&sortBy=${encodeURIComponent(q)}` : '';
        const res = await fetch(`${server.url}/scim/v2${path}${query}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(method === 'GET' ? {} : { 'content-type': 'application/scim+json' }),
          },
          body: method === 'GET' ? undefined : JSON.stringify(b),
        });
        const text = await res.text();
        expect(res.status, `${method} ${path} ${text.slice(0, 300)}`).toBeLessThan(500);
        if (res.status >= 400)
          expect(JSON.parse(text).schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
      }),
      { numRuns: 300 },
    );
  }, 120_000);
});
