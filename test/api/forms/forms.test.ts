import { describe, expect, it } from 'vitest';
import { demoPerTest, refusedUnchanged } from '../../support/api.js';
import { demo } from '../../support/server.js';

const t = demoPerTest();
const { request, expectUnchanged, stampedDuring } = t;

const FORM_WS3 = 'c571bc30-2f5b-4fb3-92b7-2b1ab7c4cbf5';
const formUrl = (id: string = demo.formCatering, ws: string = demo.ws1) => `/v1/workspaces/${ws}/forms/${id}`;
const patch = (json: unknown, token: string = demo.owner, url = formUrl()) =>
  request({ method: 'PATCH', url, token, json });
const stored = async (id: string = demo.formCatering) => await t.db.read((tx) => tx.get('forms', id));

describe('getForm (extension)', () => {
  it('returns the whole form without its workspace id', async () => {
    const res = await request({ url: formUrl(), token: demo.contentReader });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.data).sort()).toEqual([
      'design',
      'embed',
      'fields',
      'id',
      'integrations',
      'name',
      'settings',
      'updated_at',
    ]);
    expect(res.json.data.name).toBe('Catering request');
    expect(res.json.data.fields).toHaveLength(6);
  });

  it.each([
    ['unknown form', formUrl('00000000-0000-4000-8000-000000000000'), 'form_not_found'],
    ['malformed id', formUrl('not-a-uuid'), 'form_not_found'],
    ["another workspace's form", formUrl(FORM_WS3), 'form_not_found'],
  ])('%s: 404', async (_n, url, code) => {
    const res = await request({ url, token: demo.owner });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe(code);
  });
});

describe('updateForm', () => {
  it('replaces the members sent, keeps the others, and answers the whole updated form', async () => {
    const before = (await stored())!;
    const res = await stampedDuring(
      () => patch({ name: 'Catering quote' }),
      (r) => r.json.data.updated_at,
    );
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      id: demo.formCatering,
      name: 'Catering quote',
      fields: before.fields,
      settings: before.settings,
      design: before.design,
      integrations: before.integrations,
      embed: before.embed,
      updated_at: res.json.data.updated_at,
    });
    expect((await stored())!.name).toBe('Catering quote');
  });

  it('replaces fields whole; `required` defaults to false and `options` is kept only when sent', async () => {
    const res = await patch({
      fields: [
        { id: 'email', label: 'Email' },
        { id: 'size', label: 'Size', required: true, options: ['S', 'M'] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json.data.fields).toEqual([
      { id: 'email', label: 'Email', required: false },
      { id: 'size', label: 'Size', required: true, options: ['S', 'M'] },
    ]);
    expect((await stored())!.fields).toEqual(res.json.data.fields);
    expect((await stored())!.settings).toEqual({
      success_message: "Thanks! We'll confirm your catering quote within one business day.",
      notify_email: 'events@acme-coffee.example',
    });
  });

  describe('object members merge by JSON Merge Patch', () => {
    it('a key sent as null is removed, a key not sent stays, a new key is added', async () => {
      const res = await patch({ settings: { notify_email: null, redirect_url: 'https://acme.example/thanks' } });
      expect(res.status).toBe(200);
      expect(res.json.data.settings).toEqual({
        success_message: "Thanks! We'll confirm your catering quote within one business day.",
        redirect_url: 'https://acme.example/thanks',
      });
      expect((await stored())!.settings).toEqual(res.json.data.settings);
      // The other object members were not sent: unchanged.
      expect((await stored())!.design).toEqual({ theme: 'light', accent_color: '#8b5a2b' });
    });

    it('nested objects merge; arrays replace', async () => {
      await patch({ design: { colors: { accent: '#111', text: '#222' }, fonts: ['Inter', 'Lora'] } });
      const res = await patch({ design: { colors: { text: null, background: '#fff' }, fonts: ['Mono'] } });
      expect(res.status).toBe(200);
      expect((await stored())!.design).toEqual({
        theme: 'light',
        accent_color: '#8b5a2b',
        colors: { accent: '#111', background: '#fff' },
        fonts: ['Mono'],
      });
    });

    it('each of settings, design, integrations and embed merges on its own', async () => {
      const res = await patch({
        integrations: { webhook_url: 'https://hooks.example/x', slack: { channel: '#events' } },
        embed: { mode: null, width: 600 },
      });
      expect(res.status).toBe(200);
      expect((await stored())!.integrations).toEqual({
        webhook_url: 'https://hooks.example/x',
        slack: { channel: '#events' },
      });
      expect((await stored())!.embed).toEqual({ width: 600 });
    });

    it('accepts application/merge-patch+json (RFC 7396) as well as application/json', async () => {
      const res = await request({
        method: 'PATCH',
        url: formUrl(),
        token: demo.owner,
        body: '{"embed": {"mode": null}}',
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(res.status).toBe(200);
      expect((await stored())!.embed).toEqual({});
    });

    it('the member itself sent as null empties it', async () => {
      const res = await patch({ settings: null });
      expect(res.status).toBe(200);
      expect(res.json.data.settings).toEqual({});
      expect((await stored())!.settings).toEqual({});
    });

    it('an empty object changes nothing in that member', async () => {
      const before = (await stored())!.settings;
      const res = await patch({ settings: {} });
      expect(res.status).toBe(200);
      expect((await stored())!.settings).toEqual(before);
    });

    it('concurrent patches of different keys both land (read-merge-write is one transaction)', async () => {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => patch({ settings: { [`k${i}`]: i } })));
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
      const settings = (await stored())!.settings;
      for (let i = 0; i < 10; i++) expect(settings[`k${i}`]).toBe(i);
      expect(settings.success_message).toBeDefined();
    });
  });

  describe('prototype keys never reach a prototype', () => {
    it.each(['constructor', 'prototype'])('`%s` inside an object member: 422, nothing changed', async (key) => {
      const before = await stored();
      for (const body of [
        `{"settings": {"${key}": {"polluted": true}}}`,
        `{"settings": {"a": {"${key}": {"polluted": true}}}}`,
      ]) {
        const res = await request({
          method: 'PATCH',
          url: formUrl(),
          token: demo.owner,
          body,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status).toBe(422);
        expect(Object.keys(res.json.errors)[0]).toMatch(/^settings/);
      }
      expectUnchanged(await stored(), before);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('`__proto__` nested in an object member: 422; at its top level it is dropped, never stored', async () => {
      const nested = await request({
        method: 'PATCH',
        url: formUrl(),
        token: demo.owner,
        body: '{"settings": {"a": {"__proto__": {"polluted": true}}}}',
        headers: { 'content-type': 'application/json' },
      });
      expect(nested.status).toBe(422);
      const top = await request({
        method: 'PATCH',
        url: formUrl(),
        token: demo.owner,
        body: '{"settings": {"__proto__": {"polluted": true}, "ok": 1}}',
        headers: { 'content-type': 'application/json' },
      });
      expect(top.status).toBe(200);
      const settings = (await stored())!.settings;
      expect(Object.getPrototypeOf(settings)).toBe(Object.prototype);
      expect(Object.keys(settings)).toEqual(['success_message', 'notify_email', 'ok']);
      expect(settings.polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('validation (422, nothing changed)', () => {
    const field = (over: Record<string, unknown>) => ({ id: 'f', label: 'F', ...over });
    const s255 = 'x'.repeat(255);
    // [case, body, accepted, failing field path]
    const cases: Array<[string, unknown, boolean, string?]> = [
      ['field id of 64', { fields: [field({ id: 'i'.repeat(64) })] }, true],
      ['field id of 65', { fields: [field({ id: 'i'.repeat(65) })] }, false, 'fields.0.id'],
      ['field id missing', { fields: [{ label: 'F' }] }, false, 'fields.0.id'],
      ['field label of 255', { fields: [field({ label: s255 })] }, true],
      ['field label of 256', { fields: [field({ label: `${s255}x` })] }, false, 'fields.0.label'],
      ['field label missing', { fields: [{ id: 'f' }] }, false, 'fields.0.label'],
      ['required not a boolean', { fields: [field({ required: 'yes' })] }, false, 'fields.0.required'],
      ['100 options', { fields: [field({ options: Array.from({ length: 100 }, (_, i) => `o${i}`) })] }, true],
      [
        '101 options',
        { fields: [field({ options: Array.from({ length: 101 }, (_, i) => `o${i}`) })] },
        false,
        'fields.0.options',
      ],
      ['option of 255', { fields: [field({ options: [s255] })] }, true],
      ['option of 256', { fields: [field({ options: [`${s255}x`] })] }, false, 'fields.0.options.0'],
      ['option not a string', { fields: [field({ options: [1] })] }, false, 'fields.0.options.0'],
      ['unknown member of a field', { fields: [field({ placeholder: 'x' })] }, false, 'fields.0.placeholder'],
      ['duplicate field ids', { fields: [field({}), field({})] }, false, 'fields.1.id'],
      ['fields not an array', { fields: {} }, false, 'fields'],
      ['settings not an object', { settings: [] }, false, 'settings'],
      ['name not a string', { name: 5 }, false, 'name'],
      ['unknown member', { title: 'x' }, false, 'title'],
      ['empty body', {}, false, '(body)'],
    ];
    it.each(cases)('%s', async (_name, body, accepted, path) => {
      const before = await stored();
      const res = await patch(body);
      if (accepted) {
        expect(res.status).toBe(200);
        expect((await stored())!.fields).toEqual(res.json.data.fields);
        return;
      }
      expect(res.status).toBe(422);
      expect(res.json.code).toBe('validation_failed');
      expect(res.json.errors).toHaveProperty([path!]);
      expectUnchanged(await stored(), before);
    });

    it('no body at all is 422 too', async () => {
      const res = await request({ method: 'PATCH', url: formUrl(), token: demo.owner });
      expect(res.status).toBe(422);
      expect(res.json.code).toBe('validation_failed');
    });
  });

  describe('not found and refusals change nothing', () => {
    it.each([
      ['unknown form', formUrl('00000000-0000-4000-8000-000000000000'), 404, 'form_not_found'],
      [
        "another workspace's form, through a workspace the caller belongs to",
        formUrl(FORM_WS3, demo.ws1),
        404,
        'form_not_found',
      ],
    ])('%s', async (_n, url, status, code) => {
      const res = await patch({ name: 'x' }, demo.owner, url);
      expect(res.status).toBe(status);
      expect(res.json.code).toBe(code);
      expect((await stored(FORM_WS3))!.name).toBe('Report a problem');
    });

    // [case, token, code, url, the form's id, its name]
    refusedUnchanged<[url: string, id: string, name: string]>(
      [
        [
          'a token without content:write',
          demo.contentReader,
          'insufficient_ability',
          formUrl(),
          demo.formCatering,
          'Catering request',
        ],
        [
          "a workspace the token's user is not a member of",
          demo.owner,
          'not_a_member',
          formUrl(FORM_WS3, demo.ws3),
          FORM_WS3,
          'Report a problem',
        ],
      ],
      {
        stored: (_url, id) => stored(id),
        attempt: (token, url) => patch({ name: 'Hijacked', settings: { x: 1 } }, token, url),
        unchanged: expectUnchanged,
        async readBack(url, id, name) {
          const readBack = await request({ url, token: id === FORM_WS3 ? demo.ciWriter : demo.owner });
          expect(readBack.json.data.name).toBe(name);
          expect(readBack.json.data.settings).not.toHaveProperty('x');
        },
      },
    );
  });
});
