import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/contract/openapi.js';
import { operationList } from '../../src/contract/operations.js';
import { runInProcess } from '../support/cli.js';
import { PROBLEM_MEMBERS } from '../support/problem.js';
import { demo, inProcess, type InProcess } from '../support/server.js';

async function lint(doc: unknown) {
  const config = await createConfig({ extends: ['recommended'] });
  return lintFromString({ source: JSON.stringify(doc), absoluteRef: '/openapi.json', config });
}
/** Spectral with its OpenAPI ruleset (`spectral:oas`, recommended rules), as `spectral lint` runs it. */
async function spectral(doc: unknown): Promise<string[]> {
  const { Spectral, Document } = (await import('@stoplight/spectral-core')).default;
  const { oas } = await import('@stoplight/spectral-rulesets');
  const { Json } = await import('@stoplight/spectral-parsers');
  const linter = new Spectral();
  linter.setRuleset({ extends: [[oas as never, 'recommended']] });
  const results = await linter.run(new Document(JSON.stringify(doc), Json, '/openapi.json'));
  return results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);
}
const describeProblems = (ps: Awaited<ReturnType<typeof lint>>) =>
  ps.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);

let s: InProcess;
let served: any;
beforeAll(async () => {
  s = await inProcess();
  const res = await s.request({ url: '/v1/openapi.json' });
  expect(res.status).toBe(200);
  expect(res.headers['Content-Type']).toMatch(/^application\/json/);
  served = res.json;
});
afterAll(() => s.close());

describe('the OpenAPI document', () => {
  it('GET /v1/openapi.json (no token needed) and `wcm openapi` give the same document', async () => {
    const cli = await runInProcess(['openapi']);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(served);
    expect(served).toEqual(buildOpenApi());
  });

  it('passes @redocly/openapi-core with the recommended rules: no errors, no warnings', async () => {
    const problems = await lint(served);
    expect(describeProblems(problems.filter((p) => p.severity === 'error'))).toEqual([]);
    expect(describeProblems(problems)).toEqual([]);
  });

  it('the validator does catch a broken document (the check can fail)', async () => {
    const broken = structuredClone(served);
    const first = Object.values(broken.paths as Record<string, Record<string, any>>)[0];
    const op = Object.values(first)[0];
    op.responses = {};
    op.operationId = 'listListings';
    broken.paths['/extra'] = {
      get: {
        operationId: 'listListings',
        responses: {
          200: { description: 'x', content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } } },
        },
      },
    };
    const errors = (await lint(broken)).filter((p) => p.severity === 'error');
    expect(errors.length).toBeGreaterThan(0);
  });

  it('passes Spectral spectral:oas (recommended): nothing reported, examples included', async () => {
    expect(await spectral(served)).toEqual([]);
  });

  it('Spectral does catch an example that breaks its schema (the check can fail)', async () => {
    const broken = structuredClone(served);
    broken.paths['/workspaces/{workspace}/lists'].post.requestBody.content['application/json'].example.title = 42;
    expect(
      (await spectral(broken)).some((r) =>
        r.startsWith('oas3-valid-media-example at paths./workspaces/{workspace}/lists.post.requestBody'),
      ),
    ).toBe(true);
  });

  it('the request examples are requests the server takes: createListing and createOAuthApp answer 201', async () => {
    for (const path of ['/workspaces/{workspace}/lists', '/workspaces/{workspace}/oauth-apps']) {
      const json = served.paths[path].post.requestBody.content['application/json'].example;
      const res = await s.request({
        method: 'POST',
        url: `/v1${path.replace('{workspace}', demo.ws1)}`,
        token: demo.owner,
        json,
      });
      expect(res.status, `${path}: ${JSON.stringify(res.json)}`).toBe(201);
    }
  });

  it('every request body and every success response has an example', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(served.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (op.requestBody && op.requestBody.content['application/json'].example === undefined)
          missing.push(`${method} ${path} body`);
        for (const [status, res] of Object.entries(op.responses as Record<string, any>)) {
          if (/^2/.test(status) && res.content['application/json'].example === undefined)
            missing.push(`${method} ${path} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(operationList.filter((o) => o.body).length).toBeGreaterThan(3);
  });

  it('is OpenAPI 3.1 with the contract version and both base addresses', () => {
    expect(served.openapi).toBe('3.1.0');
    expect(served.info.version).toBe('1.0.0-alpha.1');
    expect(served.servers.map((x: { url: string }) => x.url)).toEqual(['/v1', '/api/v1']);
  });

  it('holds every operation of the table at its path and method, with its operationId', () => {
    const found: string[] = [];
    for (const [p, item] of Object.entries(served.paths as Record<string, Record<string, { operationId: string }>>)) {
      for (const [method, op] of Object.entries(item)) found.push(`${method.toUpperCase()} ${p} ${op.operationId}`);
    }
    expect(found.sort()).toEqual(operationList.map((o) => `${o.method} ${o.path} ${o.operationId}`).sort());
  });

  it('has the eleven seed paths, /threads and its alias /inbox-threads included', () => {
    const seed = [
      ['post', '/workspaces/{workspace}/lists', 'createListing'],
      ['get', '/workspaces/{workspace}/lists', 'listListings'],
      ['patch', '/workspaces/{workspace}/forms/{form}', 'updateForm'],
      ['patch', '/workspaces/{workspace}/pages/{page}', 'updatePage'],
      ['get', '/workspaces/{workspace}/knowledge-lists/{list}/articles', 'listArticles'],
      [
        'post',
        '/workspaces/{workspace}/knowledge-lists/{list}/articles/{article}/versions/{version}/restore',
        'restoreArticleVersion',
      ],
      ['post', '/public/commerce/offers/{offer}/payment-intents', 'createPaymentIntent'],
      ['post', '/public/agents/{agent}/analytics-events/opened', 'recordAgentChatOpened'],
      ['get', '/workspaces/{workspace}/inbox-threads', 'listInboxThreads'],
      ['get', '/workspaces/{workspace}/threads', 'listThreads'],
      ['get', '/workspaces/{workspace}/bookings', 'listBookings'],
      ['get', '/workspaces/{workspace}/voice-interactions', 'listVoiceInteractions'],
    ];
    for (const [m, p, id] of seed) {
      expect(served.paths[p]?.[m]?.operationId, `${m} ${p}`).toBe(id);
      expect(served.paths[p][m]['x-extension'], `${id} is in the seed`).toBeUndefined();
    }
  });

  it('marks every extension with x-extension: true, and only those', () => {
    for (const op of operationList) {
      const doc = served.paths[op.path][op.method.toLowerCase()];
      expect(doc['x-extension'], op.operationId).toBe(op.extension ? true : undefined);
    }
    expect(operationList.filter((o) => o.extension).map((o) => o.operationId)).toEqual(
      expect.arrayContaining(['getMe', 'listListingTemplates', 'receivePaymentNotification', 'getThread']),
    );
  });

  it('describes createListing with its limits, the ability, 201, and problem+json errors', () => {
    const op = served.paths['/workspaces/{workspace}/lists'].post;
    expect(op['x-ability']).toBe('content:write');
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(op.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '404', '413', '415', '422']),
    );
    expect(op.responses['422'].content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Problem');
    const body = op.requestBody.content['application/json'].schema;
    const schema = body.$ref ? served.components.schemas[body.$ref.split('/').pop()] : body;
    expect(schema.required).toEqual(['title', 'template_slug']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.title.maxLength).toBe(255);
    expect(schema.properties.items.maxItems).toBe(50);
    const item = schema.properties.items.items.$ref
      ? served.components.schemas[schema.properties.items.items.$ref.split('/').pop()]
      : schema.properties.items.items;
    expect(item.properties.title.maxLength).toBe(255);
    expect(item.properties.description.maxLength).toBe(2000);
    const list = served.paths['/workspaces/{workspace}/lists'].get;
    const limit = list.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 25 });
    // The schema requires exactly the members every problem body has (expectProblem's list).
    expect(served.components.schemas.Problem.required.sort()).toEqual(PROBLEM_MEMBERS);
  });
});
