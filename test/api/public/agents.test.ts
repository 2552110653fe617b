import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { demo, openedUrl, publicApp, type PublicApp } from '../../server/payments/harness.js';

let s: PublicApp;
beforeEach(async () => {
  s = await publicApp();
});
afterEach(async () => {
  await s.close();
});

const BUTTON = '3f2d7c1e-9a4b-4c8d-8e6f-1a2b3c4d5e6f';
const APP = '9b8a7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d';

describe('recordAgentChatOpened', () => {
  it('201 with the event shape of src/api/public/schemas.ts', async () => {
    const res = await s.request({
      url: openedUrl(demo.agent1),
      key: 'visit-key-0001',
      json: { button: BUTTON, app: APP },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json.data).sort()).toEqual(['agent_id', 'app_id', 'button_id', 'id', 'occurred_at', 'type']);
    expect(res.json.data).toMatchObject({
      type: 'agent.chat_opened',
      agent_id: demo.agent1,
      button_id: BUTTON,
      app_id: APP,
    });
    // The store's time: the test clock's (on PostgreSQL, the database's, set to it before the
    // request and running on during it).
    const late = Date.parse(res.json.data.occurred_at) - s.clock.now().getTime();
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(s.db.kind === 'postgres' ? 2000 : 1);
    expect(res.json.data.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('button and app are optional (null when not sent)', async () => {
    const res = await s.request({ url: openedUrl(demo.agent1), key: 'visit-key-0002' });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ button_id: null, app_id: null });
  });

  it.each([
    [{ button: 'not-a-uuid' }, 'button'],
    [{ app: 'x' }, 'app'],
    [{ visitor: 'v1' }, 'visitor'],
  ])('%j is 422 naming `%s`', async (json, field) => {
    const res = await s.request({ url: openedUrl(demo.agent1), key: 'visit-key-0003', json });
    expect(res.status).toBe(422);
    expect(Object.keys(res.json.errors)).toEqual([field]);
  });

  it.each([
    ['unknown', '00000000-0000-4000-8000-000000000000'],
    ['malformed', 'agent-1'],
  ])('%s agent: 404 agent_not_found', async (_n, id) => {
    const res = await s.request({ url: openedUrl(id), key: 'visit-key-0004', json: {} });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('agent_not_found');
    expect(await s.db.read((tx) => tx.count('analytics_events'))).toBe(0);
  });

  it('deduplicated by agent and key: the same key twice is one event, on another agent another event', async () => {
    const a = await s.request({ url: openedUrl(demo.agent1), key: 'visit-key-0005', json: { button: BUTTON } });
    const b = await s.request({ url: openedUrl(demo.agent1), key: 'visit-key-0005', json: { button: BUTTON } });
    expect(b.headers['Idempotent-Replayed']).toBe('true');
    expect(b.json.data.id).toBe(a.json.data.id);
    expect(await s.db.read((tx) => tx.count('analytics_events'))).toBe(1);
    const c = await s.request({ url: openedUrl(demo.agent3), key: 'visit-key-0005', json: { button: BUTTON } });
    expect(c.json.data.id).not.toBe(a.json.data.id);
    expect(await s.db.read((tx) => tx.count('analytics_events'))).toBe(2);
  });

  it('nothing that identifies the visitor is stored or returned: the store holds no address, user agent, cookie or referrer', async () => {
    const visitor = {
      'user-agent': 'Mozilla/5.0 (VisitorBrowser-7Q3Z)',
      cookie: 'session=cookie-value-K9X2',
      referer: 'https://referrer.example/private-page-W4',
      'x-forwarded-for': '203.0.113.77',
      'accept-language': 'fr-CH-visitor',
    };
    const res = await s.request({
      url: openedUrl(demo.agent1),
      key: 'visit-key-0006',
      json: { button: BUTTON },
      headers: visitor,
      remoteAddress: '198.51.100.201',
    });
    expect(res.status).toBe(201);
    const files = await s.storedText();
    // The event itself is in the store…
    expect(files).toContain(res.json.data.id);
    // …but nothing about who opened the chat.
    for (const needle of [
      'VisitorBrowser-7Q3Z',
      'cookie-value-K9X2',
      'private-page-W4',
      '203.0.113.77',
      '198.51.100.201',
      'fr-CH-visitor',
      'visit-key-0006',
    ]) {
      expect(files).not.toContain(needle);
      expect(res.body).not.toContain(needle);
    }
  });
});
