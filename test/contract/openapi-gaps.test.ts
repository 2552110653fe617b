// Issue 25: what typed clients and validating proxies need from the document, and ids in any case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/contract/openapi.js';
import { operationList } from '../../src/contract/operations.js';
import { fullApp, pathParams, urlFor, validBody, validId } from '../reliability/attack.js';
import { demo, inProcess, type InProcess } from '../support/server.js';
import { recordsOf } from '../support/store.js';

const doc = buildOpenApi('/v1') as any;
const opsIn = () => Object.values(doc.paths).flatMap((item: any) => Object.values(item)) as any[];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the document', () => {
  it('declares X-Request-Id on every response, and every operation has a description', () => {
    for (const op of opsIn()) {
      expect(op.description, op.operationId).toEqual(expect.any(String));
      for (const [status, res] of Object.entries(op.responses) as Array<[string, any]>)
        expect(res.headers?.['X-Request-Id'], `${op.operationId} ${status}`).toBeDefined();
    }
  });

  it('declares Idempotent-Replayed and RateLimit-* on public successes, Retry-After on 429 and 503, Allow on 405', () => {
    const pay = opsIn().find((o) => o.operationId === 'createPaymentIntent');
    expect(Object.keys(pay.responses['201'].headers)).toEqual(
      expect.arrayContaining(['Idempotent-Replayed', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    );
    expect(pay.responses['429'].headers['Retry-After']).toBeDefined();
    for (const op of opsIn()) {
      expect(op.responses['503'].headers['Retry-After'], op.operationId).toBeDefined();
      expect(op.responses['405'].headers.Allow, op.operationId).toBeDefined();
    }
  });

  it('gives Idempotency-Key the pattern the server enforces', () => {
    const key = opsIn()
      .find((o) => o.operationId === 'createPaymentIntent')
      .parameters.find((p: any) => p.name === 'Idempotency-Key');
    expect(key.schema.pattern).toBe('^[\\x21-\\x7E]{8,120}$');
    const re = new RegExp(key.schema.pattern);
    expect(re.test('fine-key-123')).toBe(true);
    expect(re.test('has space in it')).toBe(false);
    expect(re.test('ümlaut-key')).toBe(false);
  });

  it('types the payment webhook body as a Stripe event and lists 400 invalid_signature', () => {
    const hook = opsIn().find((o) => o.operationId === 'receivePaymentNotification');
    const body = hook.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['id', 'type', 'data']);
    expect(body.properties.data.properties.object.additionalProperties).toBe(true);
    expect(hook.responses['400'].description).toContain('invalid_signature');
  });

  it('types Page.chat.suggested_replies with SuggestedReply, as the request side does', () => {
    const text = JSON.stringify(doc.components.schemas);
    const page = Object.entries(doc.components.schemas).find(([name]) => /^Page(Output)?$/.test(name))![1] as any;
    expect(JSON.stringify(page.properties.chat)).toContain('SuggestedReply');
    expect(text).not.toContain('9007199254740991');
  });
});

describe('upper-case uuids name the same records (RFC 4122), on every operation with a uuid in its path', () => {
  let s: InProcess;
  beforeAll(async () => {
    s = await inProcess();
  });
  afterAll(() => s.close());

  const withUuids = operationList.filter(
    (op) => op.access !== 'signature' && pathParams(op).some((p) => UUID.test(validId(op, p) ?? '')),
  );
  it('covers the operations with uuid ids', () => expect(withUuids.length).toBeGreaterThan(15));

  it.each(withUuids.map((op) => [op.operationId, op] as const))(
    '%s answers the upper-cased ids like the lower-case ones',
    async (_, op) => {
      const fresh = await inProcess();
      try {
        const app = await fullApp(fresh);
        const upper = Object.fromEntries(
          pathParams(op).map((p) => [
            p,
            UUID.test(validId(op, p) ?? '') ? validId(op, p)!.toUpperCase() : validId(op, p)!,
          ]),
        );
        const body = validBody(op);
        const res = await app.handle({
          method: op.method,
          url: urlFor(op, upper),
          headers: {
            host: 'localhost',
            'content-type': 'application/json',
            ...(op.access === 'public'
              ? { 'idempotency-key': 'upper-case-ids-1' }
              : { authorization: `Bearer ${demo.owner}` }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        expect(res.status, res.body.slice(0, 300)).toBe(op.status);
        // What the answer names, it names in lower case.
        expect(res.body).not.toMatch(/[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/);
      } finally {
        await fresh.close();
      }
    },
  );

  it("uuids in a body are stored lower case (the agent event's button)", async () => {
    const button = '00000000-0000-4000-8000-00000000ABCD';
    const res = await s.request({
      method: 'POST',
      url: `/v1/public/agents/${demo.agent1.toUpperCase()}/analytics-events/opened`,
      headers: { 'idempotency-key': 'upper-body-1' },
      json: { button },
    });
    expect([res.status, res.body]).toEqual([201, expect.anything()]);
    const events = (await recordsOf(s.db, 'analytics_events')).filter(
      (e) => e.button_id?.toLowerCase() === button.toLowerCase(),
    );
    expect(events.map((e) => [e.button_id, e.agent_id])).toEqual([[button.toLowerCase(), demo.agent1]]);
  });
});

describe('outside validators', () => {
  it('the OpenAPI 3.1 JSON schema (@seriousme/openapi-schema-validator) finds the document valid', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.valid, JSON.stringify(result.errors ?? null).slice(0, 1000)).toBe(true);
    expect(validator.version).toBe('3.1');
    // And it does refuse a broken one (the check can fail).
    expect(
      (await new Validator().validate({ openapi: '3.1.0', info: { title: 'x' }, paths: { nope: {} } })).valid,
    ).toBe(false);
  });
});
