import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { demo, inProcess, type InProcess } from '../support/server.js';

let s: InProcess;
beforeEach(async () => {
  s = await inProcess();
});
afterEach(async () => {
  await s.close();
});

const lists = `/v1/workspaces/${demo.ws1}/lists`;

describe('createListing', () => {
  it('creates an unattached listing with 201 and the record shape of DECISIONS.md', async () => {
    const res = await s.request({ method: 'POST', url: lists, token: demo.owner, json: { title: 'FAQ', template_slug: 'faq', items: [{ title: 'Q', description: 'A' }] } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json.data).sort()).toEqual(['button_id', 'created_at', 'dashboard_url', 'id', 'items', 'template_slug', 'title']);
    expect(res.json.data.button_id).toBeNull();
    expect(res.json.data.items).toEqual([{ title: 'Q', description: 'A' }]);
    expect(res.headers['X-Request-Id']).toBe(res.json.meta.request_id);
  });
});
