import { describe, expect, it } from 'vitest';
import { b, eng, engagementPerFile, v } from '../../support/engagement.js';

const server = engagementPerFile();

const get = (url: string) => server.s.request({ url, token: eng.token });
const ids = (res: { json: { data: Array<{ id: string }> } }) => res.json.data.map((x) => x.id);

describe('listBookings', () => {
  const url = `/v1/workspaces/${eng.wsA}/bookings`;
  // Fixture: b1 pending 11-01 09:00, b2 confirmed 11-02 09:00, b3 cancelled and b4 confirmed both
  // 11-03 09:00 (id order), b5 confirmed 11-05 00:00 (all 2025, UTC); b6 is workspace B's.
  it.each([
    ['', [1, 2, 3, 4, 5]],
    ['status=confirmed', [2, 4, 5]],
    ['status=pending', [1]],
    ['status=cancelled', [3]],
    ['from=2025-11-02T09:00:00Z', [2, 3, 4, 5]],
    ['to=2025-11-03T09:00:00Z', [1, 2]],
    ['from=2025-11-03T10:00:00%2B01:00', [3, 4, 5]],
    ['from=2025-11-02T00:00:00Z&to=2025-11-04T00:00:00Z', [2, 3, 4]],
    ['from=2025-11-02T00:00:00Z&to=2025-11-04T00:00:00Z&status=confirmed', [2, 4]],
    ['from=2025-11-03T09:00:00Z&to=2025-11-03T09:00:00Z', []],
    ['from=2026-01-01T00:00:00Z', []],
  ])('?%s → %j, soonest first', async (query, expected) => {
    const res = await get(`${url}?${query}`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(expected.map(b));
  });

  it('shapes items as their schema in src/api/engagement/schemas.ts lists them', async () => {
    const res = await get(`${url}?limit=1`);
    expect(res.json.data[0]).toEqual({
      id: b(1),
      status: 'pending',
      booking_type: { id: '60000000-0000-4000-8000-000000000001', name: 'Tasting' },
      contact: { name: 'Guest 1', email: 'guest1@example.test' },
      starts_at: '2025-11-01T09:00:00.000Z',
      ends_at: '2025-11-01T10:00:00.000Z',
      timezone: 'Europe/Paris',
    });
  });

  it('pages within a range: limit 2 over from/to gives every booking once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(
        `${url}?from=2025-11-02T00:00:00Z&to=2025-11-06T00:00:00Z&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...ids(res));
      cursor = res.json.meta.next_cursor;
    } while (cursor);
    expect(seen).toEqual([2, 3, 4, 5].map(b));
  });

  it.each([
    ['status=done', 'status'],
    ['from=yesterday', 'from'],
    ['to=2025-11-01', 'to'],
    ['from=2025-11-05T00:00:00Z&to=2025-11-01T00:00:00Z', 'to'],
    ['limit=500', 'limit'],
  ])('?%s → 422 naming %s', async (query, param) => {
    const res = await get(`${url}?${query}`);
    expect(res.status).toBe(422);
    expect(Object.keys(res.json.errors)).toEqual([param]);
  });
});

describe('listVoiceInteractions', () => {
  const url = `/v1/workspaces/${eng.wsA}/voice-interactions`;
  it.each([
    ['', [3, 2, 1]],
    ['kind=call', [3, 1]],
    ['kind=voice_message', [2]],
    ['kind=call&limit=1', [3]],
  ])('?%s → %j, newest first', async (query, expected) => {
    const res = await get(`${url}?${query}`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(expected.map(v));
  });

  it('shapes items as their schema in src/api/engagement/schemas.ts lists them', async () => {
    const res = await get(`${url}?kind=voice_message`);
    expect(res.json.data[0]).toEqual({
      id: v(2),
      kind: 'voice_message',
      from: '+15550000002',
      to: '+15559999999',
      status: 'voicemail',
      started_at: '2025-11-02T08:00:00.000Z',
      duration_seconds: 122,
      transcript: 'Please call back.',
    });
  });

  it('rejects an unknown kind with 422 naming kind', async () => {
    const res = await get(`${url}?kind=sms`);
    expect(res.status).toBe(422);
    expect(Object.keys(res.json.errors)).toEqual(['kind']);
  });
});
