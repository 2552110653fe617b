import { describe, expect, it } from 'vitest';
import { operationList } from '../../src/contract/operations.js';
import { parseSeedFile } from '../../src/seed/parse.js';
import { buildPlan } from '../../src/seed/validate.js';
import { pathParams, validBody, validId } from '../reliability/attack.js';
import { demo } from '../support/server.js';

/** Parses and plans files given as JSON values (or raw text), like `wcm seed a.json b.json` does. */
function plan(files: Record<string, unknown>, ctx: { env?: Record<string, string>; workspace?: string | null } = {}) {
  const parsed = Object.entries(files).map(([file, doc]) => ({
    file,
    ...parseSeedFile(typeof doc === 'string' ? doc : JSON.stringify(doc), file),
  }));
  return buildPlan(parsed, {
    env: ctx.env ?? {},
    workspace: ctx.workspace === null ? undefined : (ctx.workspace ?? demo.ws1),
  });
}

const steps = (...s: unknown[]) => ({ version: 1, steps: s });
const faq = { name: 'faq', operation: 'createListing', body: { title: 'FAQ', template_slug: 'faq' } };

type Row = [
  string,
  Record<string, unknown>,
  Array<[string, RegExp]>,
  { env?: Record<string, string>; workspace?: string | null }?,
];

// One row per kind of mistake: every problem found, with its file's JSON path and what it says.
const rows: Row[] = [
  ['not JSON', { 'a.json': '{"version": 1,' }, [['$', /is not valid JSON/]]],
  ['not an object', { 'a.json': [] }, [['$', /must be a JSON object .*received an array/]]],
  ['wrong version', { 'a.json': { version: 2, steps: [] } }, [['$.version', /must be 1; received 2/]]],
  ['no version', { 'a.json': { steps: [] } }, [['$.version', /`version` is required/]]],
  ['no steps', { 'a.json': { version: 1 } }, [['$.steps', /`steps` is required/]]],
  [
    'unknown file member',
    { 'a.json': { version: 1, steps: [], fixtures: [] } },
    [['$.fixtures', /unknown member `fixtures`/]],
  ],
  ['unknown step member', { 'a.json': steps({ ...faq, bdy: {} }) }, [['$.steps[0].bdy', /unknown member `bdy`/]]],
  ['step not an object', { 'a.json': steps('faq') }, [['$.steps[0]', /must be an object/]]],
  ['missing name', { 'a.json': steps({ operation: 'getMe' }) }, [['$.steps[0].name', /`name` is required/]]],
  [
    'bad name',
    { 'a.json': steps({ name: 'my step', operation: 'getMe' }) },
    [['$.steps[0].name', /only letters, digits, _ and -; received "my step"/]],
  ],
  [
    'reserved name',
    { 'a.json': steps({ name: 'env', operation: 'getMe' }) },
    [['$.steps[0].name', /`env` is reserved/]],
  ],
  ['missing operation', { 'a.json': steps({ name: 'a' }) }, [['$.steps[0].operation', /`operation` is required/]]],
  [
    'unknown operation',
    { 'a.json': steps({ name: 'a', operation: 'creatListing' }) },
    [['$.steps[0].operation', /unknown operation `creatListing`; did you mean `createListing`\?/]],
  ],
  [
    'operation a seed cannot sign',
    { 'a.json': steps({ name: 'a', operation: 'receivePaymentNotification' }) },
    [['$.steps[0].operation', /wcm payments simulate/]],
  ],
  [
    'missing path parameter',
    { 'a.json': steps({ name: 'p', operation: 'updatePage', body: { bio: 'x' } }) },
    [['$.steps[0].params', /missing path parameter `page` for updatePage/]],
  ],
  [
    'no workspace anywhere',
    { 'a.json': steps(faq) },
    [['$.steps[0].params', /`params.workspace` is missing and no workspace is chosen/]],
    { workspace: null },
  ],
  [
    'unknown parameter',
    { 'a.json': steps({ ...faq, params: { limit: 5 } }) },
    [['$.steps[0].params.limit', /`createListing` has no parameter `limit` \(path: `workspace`; query: none\)/]],
  ],
  [
    'malformed path parameter',
    { 'a.json': steps({ name: 'f', operation: 'getForm', params: { form: 'catering' } }) },
    [['$.steps[0].params.form', /valid uuid/]],
  ],
  [
    'parameter that is an object',
    { 'a.json': steps({ name: 'f', operation: 'getForm', params: { form: { id: 1 } } }) },
    [['$.steps[0].params.form', /string, number or boolean; received an object/]],
  ],
  [
    'query that fails its schema',
    { 'a.json': steps({ name: 't', operation: 'listThreads', params: { view: 'everything', limit: 500 } }) },
    [
      ['$.steps[0].params.view', /one of: inbox, unread, starred, closed/],
      ['$.steps[0].params.limit', /at most 100/],
    ],
  ],
  [
    'query date that is not ISO 8601',
    { 'a.json': steps({ name: 'b', operation: 'listBookings', params: { from: 'tomorrow' } }) },
    [['$.steps[0].params.from', /ISO 8601/]],
  ],
  [
    'body that fails its schema',
    {
      'a.json': steps({
        name: 'l',
        operation: 'createListing',
        body: { title: '', template_slug: 'faq', items: [{ title: 'Q', answer: 'A' }] },
      }),
    },
    [
      ['$.steps[0].body.title', /Must not be empty/],
      ['$.steps[0].body.items[0].answer', /unknown member `answer`/],
    ],
  ],
  [
    'body with a wrong type',
    {
      'a.json': steps({
        name: 'p',
        operation: 'updatePage',
        params: { page: demo.pageHoliday },
        body: { published: 'yes' },
      }),
    },
    [['$.steps[0].body.published', /Must be a boolean; received a string \("yes"\)/]],
  ],
  [
    'missing body where one is required',
    { 'a.json': steps({ name: 'l', operation: 'createListing' }) },
    [
      ['$.steps[0].body.title', /Required/],
      ['$.steps[0].body.template_slug', /Required/],
    ],
  ],
  [
    'empty PATCH body',
    { 'a.json': steps({ name: 'p', operation: 'updatePage', params: { page: demo.pageHoliday }, body: {} }) },
    [['$.steps[0].body', /body is empty/]],
  ],
  [
    'body on an operation without one',
    { 'a.json': steps({ name: 'm', operation: 'getMe', body: {} }) },
    [['$.steps[0].body', /`getMe` takes no body/]],
  ],
  [
    'body that is not an object',
    { 'a.json': steps({ ...faq, body: ['FAQ'] }) },
    [['$.steps[0].body', /must be a JSON object/]],
  ],
  [
    'idempotency key on a private operation',
    { 'a.json': steps({ ...faq, idempotency_key: 'abcdefgh1' }) },
    [['$.steps[0].idempotency_key', /takes no Idempotency-Key/]],
  ],
  [
    'idempotency key too short',
    {
      'a.json': steps({
        name: 'pay',
        operation: 'createPaymentIntent',
        params: { offer: demo.offerFixedUsd },
        idempotency_key: 'k-${env:RUN|1}',
      }),
    },
    [['$.steps[0].idempotency_key', /8 to 120 visible ASCII characters .*received "k-1"/]],
  ],
  [
    'unknown step',
    { 'a.json': steps(faq, { name: 'b', operation: 'getForm', params: { form: '${fqa:data.id}' } }) },
    [['$.steps[1].params.form', /refers to step `fqa`, which is not in this run; did you mean `faq`\?/]],
  ],
  [
    'forward reference',
    {
      'a.json': steps(
        { name: 'b', operation: 'createListing', body: { title: '${faq:data.title}', template_slug: 'faq' } },
        faq,
      ),
    },
    [['$.steps[0].body.title', /refers to step `faq`, which runs later \(steps\[1\]\)/]],
  ],
  [
    'forward reference into a later file',
    {
      'a.json': steps({
        name: 'b',
        operation: 'createListing',
        body: { title: '${faq:data.title}', template_slug: 'faq' },
      }),
      'b.json': steps(faq),
    },
    [['$.steps[0].body.title', /runs later \(steps\[0\] of b\.json\)/]],
  ],
  [
    'self reference',
    {
      'a.json': steps({
        name: 'faq',
        operation: 'createListing',
        body: { title: 'x ${faq:data.id}', template_slug: 'faq' },
      }),
    },
    [['$.steps[0].body.title', /refers to this step itself/]],
  ],
  [
    'path not in the response',
    {
      'a.json': steps(faq, {
        name: 'b',
        operation: 'createListing',
        body: { title: '${faq:data.idd}', template_slug: 'faq' },
      }),
    },
    [['$.steps[1].body.title', /`data` has no member `idd` \(it has `id`, `title`/]],
  ],
  [
    'list used without an index',
    {
      'a.json': steps(
        { name: 'all', operation: 'listListings' },
        { name: 'b', operation: 'getForm', params: { form: '${all:data.id}' } },
      ),
    },
    [['$.steps[1].params.form', /`data` is a list: follow it with an index such as `data.0`/]],
  ],
  [
    'referenced value of the wrong type',
    {
      'a.json': steps(faq, {
        name: 'p',
        operation: 'updatePage',
        params: { page: demo.pageHoliday },
        body: { published: '${faq:data.title}' },
      }),
    },
    [['$.steps[1].body.published', /`\$\{faq:data.title\}` gives a string, but this field takes a boolean/]],
  ],
  [
    'unset environment variable',
    {
      'a.json': steps({
        name: 'p',
        operation: 'updatePage',
        params: { page: '${env:HOME_PAGE_ID}' },
        body: { bio: 'x' },
      }),
    },
    [
      [
        '$.steps[0].params.page',
        /environment variable `HOME_PAGE_ID` is not set and `\$\{env:HOME_PAGE_ID\}` has no default/,
      ],
    ],
  ],
  [
    'environment value that fails the schema',
    {
      'a.json': steps({
        name: 'p',
        operation: 'updatePage',
        params: { page: demo.pageHoliday },
        body: { slug: '${env:SLUG}' },
      }),
    },
    [['$.steps[0].body.slug', /Must match/]],
    { env: { SLUG: 'Not A Slug' } },
  ],
  [
    'bad reference syntax',
    { 'a.json': steps({ ...faq, body: { title: '${faq', template_slug: 'faq' } }) },
    [['$.steps[0].body.title', /no closing `}`/]],
  ],
  [
    'duplicate name in one file',
    { 'a.json': steps(faq, faq) },
    [['$.steps[1].name', /`faq` is already used by steps\[0\]; names must be unique across every file/]],
  ],
  [
    'duplicate name across files',
    { 'a.json': steps(faq), 'b.json': steps({ name: 'x', operation: 'getMe' }, faq) },
    [['$.steps[1].name', /already used by steps\[0\] of a\.json/]],
  ],
];

describe('buildPlan: every problem is found before anything is sent', () => {
  it.each(rows)('%s', (_label, files, expected, ctx) => {
    const p = plan(files, ctx);
    expect(p.problems.map((x) => x.path)).toEqual(expected.map(([path]) => path));
    p.problems.forEach((problem, i) => expect(problem.message).toMatch(expected[i][1]));
    expect(p.steps).toEqual([]);
  });

  it('names the file and the step of each problem', () => {
    const p = plan({
      'a.json': steps(faq),
      'b.json': steps({ name: 'menu', operation: 'createListing', body: { title: 'M' } }),
    });
    expect(p.problems).toEqual([
      { file: 'b.json', step: 'menu', index: 0, path: '$.steps[0].body.template_slug', message: 'Required.' },
    ]);
  });

  it('reports every problem of every file at once, in reading order', () => {
    const p = plan({
      'a.json': steps({ name: 'x', operation: 'nope' }, { name: 'y', operation: 'getMe', body: {} }),
      'b.json': { version: 3, steps: [{ name: 'x', operation: 'getMe' }] },
    });
    expect(p.problems.map((x) => `${x.file} ${x.path}`)).toEqual([
      'a.json $.steps[0].operation',
      'a.json $.steps[1].body',
      'b.json $.version',
      'b.json $.steps[0].name',
    ]);
  });
});

describe('buildPlan: valid files', () => {
  // From the operations table: a new operation is covered without an edit here (its route's example body,
  // its ids chosen by the route's not-found codes).
  it.each(operationList.filter((o) => o.access !== 'signature').map((o) => [o.operationId, o] as const))(
    'accepts a step for %s',
    (id, op) => {
      const params = Object.fromEntries(
        pathParams(op)
          .filter((n) => n !== 'workspace')
          .map((n) => [n, validId(op, n)]),
      );
      const body = validBody(op);
      const p = plan({
        'a.json': steps({
          name: 'step',
          operation: id,
          ...(Object.keys(params).length ? { params } : {}),
          ...(body === undefined ? {} : { body }),
        }),
      });
      expect(p.problems).toEqual([]);
      expect(p.steps[0].path).toEqual({
        ...(op.path.includes('{workspace}') ? { workspace: demo.ws1 } : {}),
        ...params,
      });
    },
  );

  it('a realistic plan: params split into path and query, references and env resolved', () => {
    const p = plan({
      'a.json': steps(
        { name: 'me', operation: 'getMe' },
        { name: 'templates', operation: 'listListingTemplates', params: { limit: 100 } },
        {
          name: 'faq',
          operation: 'createListing',
          body: { title: '${env:BRAND|Acme} FAQ', template_slug: '${templates:data.0.slug}', items: [{ title: 'Q' }] },
        },
        { name: 'listings', operation: 'listListings', params: { limit: '${env:LIMIT|5}' } },
        { name: 'form', operation: 'getForm', params: { form: demo.formCatering } },
        {
          name: 'form2',
          operation: 'updateForm',
          params: { form: '${form:data.id}' },
          body: {
            name: '${faq:data.title}',
            fields: [{ id: 'email', label: 'Email', required: true }],
            settings: { theme: 'dark' },
          },
        },
        {
          name: 'page',
          operation: 'getPage',
          params: { page: '${env:HOME_PAGE_ID|0845b14f-2854-49d9-a836-5194b4317c42}' },
        },
        {
          name: 'page2',
          operation: 'updatePage',
          params: { page: '${page:data.id}' },
          body: {
            bio: 'See ${faq:data.dashboard_url}',
            published: true,
            chat: { greeting: '${faq:data.items.0.title}' },
          },
        },
        { name: 'articles', operation: 'listArticles', params: { list: demo.knowledgeList } },
        {
          name: 'article',
          operation: 'getArticle',
          params: { list: demo.knowledgeList, article: '${articles:data.0.id}' },
        },
        {
          name: 'restore',
          operation: 'restoreArticleVersion',
          params: { list: demo.knowledgeList, article: '${article:data.id}', version: 2 },
          body: { publish: true },
        },
        { name: 'threads', operation: 'listThreads', params: { view: 'unread', channel: 'email', q: 'order' } },
        { name: 'inbox', operation: 'listInboxThreads', params: { view: 'starred' } },
        { name: 'thread', operation: 'getThread', params: { thread: '${threads:data.0.id}' } },
        {
          name: 'bookings',
          operation: 'listBookings',
          params: { status: 'confirmed', from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' },
        },
        { name: 'voice', operation: 'listVoiceInteractions', params: { kind: 'call' } },
        {
          name: 'pay',
          operation: 'createPaymentIntent',
          params: { offer: demo.offerFixedUsd },
          body: { quantity: 2, customer_email: 'bo@example.com', source_type: 'list', source_id: '${faq:data.id}' },
          idempotency_key: 'seed-${env:RUN_ID|local}-pay',
        },
        {
          name: 'opened',
          operation: 'recordAgentChatOpened',
          params: { agent: demo.agent1 },
          body: { button: '${faq:data.button_id|00000000-0000-4000-8000-000000000000}' },
        },
        { name: 'listing', operation: 'getListing', params: { list: '${faq:data.id}' } },
        { name: 'forms', operation: 'listForms', params: { limit: 100 } },
        { name: 'pages', operation: 'listPages', params: { published: 'false' } },
        { name: 'knowledge', operation: 'listKnowledgeLists' },
        { name: 'offers', operation: 'listOffers' },
        { name: 'agents', operation: 'listAgents' },
        {
          name: 'app',
          operation: 'createOAuthApp',
          body: { name: 'CI app', redirect_uris: ['http://127.0.0.1/callback'] },
        },
        { name: 'apps', operation: 'listOAuthApps' },
        { name: 'gone', operation: 'deleteOAuthApp', params: { app: '${app:data.client_id}' } },
        { name: 'grants', operation: 'listOAuthGrants' },
        { name: 'revoked', operation: 'revokeOAuthGrant', params: { grant: '${grants:data.0.id}' } },
      ),
    });
    expect(p.problems).toEqual([]);
    const listings = p.steps.find((s) => s.name === 'listings')!;
    expect(listings.path).toEqual({ workspace: demo.ws1 });
    expect(listings.query).toEqual({ limit: '${env:LIMIT|5}' });
    expect(p.steps.find((s) => s.name === 'restore')!.needs).toEqual(['article']);
    expect(p.steps.find((s) => s.name === 'page2')!.needs.sort()).toEqual(['faq', 'page']);
    expect(p.steps.find((s) => s.name === 'me')!.path).toEqual({});
    expect(p.steps.find((s) => s.name === 'pages')!.query).toEqual({ published: 'false' });
    expect(p.steps.find((s) => s.name === 'listing')!.path).toEqual({ workspace: demo.ws1, list: '${faq:data.id}' });
  });

  it("lets a step name its own workspace instead of the target's", () => {
    const p = plan({ 'a.json': steps({ ...faq, params: { workspace: demo.ws2 } }) });
    expect(p.steps[0].path).toEqual({ workspace: demo.ws2 });
  });

  it('needs no workspace when no step has one in its path', () => {
    expect(plan({ 'a.json': steps({ name: 'me', operation: 'getMe' }) }, { workspace: null }).problems).toEqual([]);
  });

  it("shares one namespace across files: a later file uses an earlier file's step", () => {
    const p = plan({
      'a.json': steps(faq),
      'b.json': steps({
        name: 'b',
        operation: 'createListing',
        body: { title: 'About ${faq:data.title}', template_slug: 'links', items: [{ title: '${faq:data.id}' }] },
      }),
    });
    expect(p.problems).toEqual([]);
    expect(p.steps.map((s) => [s.file, s.seq, s.name, s.needs])).toEqual([
      ['a.json', 0, 'faq', []],
      ['b.json', 1, 'b', ['faq']],
    ]);
  });
});
