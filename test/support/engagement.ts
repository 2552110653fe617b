import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { inProcess, tempDir, type InProcess } from './server.js';

/**
 * A small store fixture for the engagement tests, where every expected id is known by name.
 * Workspace A holds the records under test; workspace B holds one of each that must never show.
 */
export const eng = {
  token: 'wcm_pat_engagementSupportReader0123456789abcdefgh',
  contentOnly: 'wcm_pat_engagementContentOnly0123456789abcdefghi',
  wsA: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
  wsB: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
} as const;

const id = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** Thread ids: t(1) … t(8); bookings b(n); voice v(n). Ids sort as their numbers do. */
export const t = (n: number) => id('10000000', n);
export const b = (n: number) => id('20000000', n);
export const v = (n: number) => id('30000000', n);
const m = (n: number) => id('40000000', n);
const c = (n: number) => id('50000000', n);
const bt = id('60000000', 1);

let msg = 0;
const message = (channel: string, at: string, body = `Message ${msg + 1}`, direction = 'inbound') => ({
  id: m(++msg),
  channel,
  direction,
  body,
  created_at: at,
});

function thread(
  n: number,
  o: {
    ws?: string;
    status?: string;
    unread?: boolean;
    starred?: boolean;
    subject?: string | null;
    contact?: Record<string, string | null>;
    messages: ReturnType<typeof message>[];
  },
) {
  return {
    id: t(n),
    workspace_id: o.ws ?? eng.wsA,
    subject: o.subject === undefined ? `Subject ${n}` : o.subject,
    status: o.status ?? 'open',
    unread: o.unread ?? false,
    starred: o.starred ?? false,
    contact: { id: c(n), name: `Person ${n}`, email: `person${n}@example.test`, phone: null, ...o.contact },
    messages: o.messages,
  };
}

/**
 * Threads, newest last message first: t5 (14:00), t4 (13:00), t2 (12:00), t7 and t1 (both 11:00:
 * the higher id first), t3 (09:00), t6 (no messages, last). t8 is workspace B's.
 */
export const fixture = {
  version: 1,
  users: [{ id: 'usr_eng', name: 'Sam Support', email: 'sam@example.test' }],
  workspaces: [
    { id: eng.wsA, name: 'Engagement A', members: [{ user_id: 'usr_eng', role: 'owner' }] },
    { id: eng.wsB, name: 'Engagement B', members: [{ user_id: 'usr_eng', role: 'owner' }] },
  ],
  tokens: [
    { token: eng.token, user_id: 'usr_eng', name: 'support', abilities: ['engagements:read'] },
    { token: eng.contentOnly, user_id: 'usr_eng', name: 'content', abilities: ['content:read'] },
  ],
  threads: [
    thread(1, {
      unread: true,
      messages: [
        message('email', '2025-03-01T10:00:00Z', 'A mango question from earlier'),
        message('whatsapp', '2025-03-01T11:00:00Z', 'Parcel landed safely, thanks!'),
      ],
    }),
    thread(2, {
      starred: true,
      contact: { name: 'Zelda Quartz' },
      messages: [message('web_chat', '2025-03-01T12:00:00Z', 'Hello from the chat', 'outbound')],
    }),
    thread(3, { status: 'closed', starred: true, messages: [message('form', '2025-03-01T09:00:00Z')] }),
    thread(4, {
      status: 'closed',
      messages: [message('email', '2025-03-01T08:00:00Z'), message('web_chat', '2025-03-01T13:00:00Z')],
    }),
    thread(5, {
      unread: true,
      starred: true,
      contact: { name: 'Quinn Ray', email: 'orchid.mail@example.test' },
      messages: [message('whatsapp', '2025-03-01T14:00:00Z')],
    }),
    thread(6, { subject: null, contact: { name: null, email: null, phone: '+15550006' }, messages: [] }),
    thread(7, { subject: 'Broken kettle spout', messages: [message('email', '2025-03-01T11:00:00Z')] }),
    thread(8, { ws: eng.wsB, unread: true, starred: true, messages: [message('email', '2025-03-01T15:00:00Z')] }),
  ],
  bookings: [
    [1, 'pending', '2025-11-01T09:00:00Z'],
    [2, 'confirmed', '2025-11-02T09:00:00Z'],
    [3, 'cancelled', '2025-11-03T09:00:00Z'],
    [4, 'confirmed', '2025-11-03T09:00:00Z'],
    [5, 'confirmed', '2025-11-05T00:00:00Z'],
    [6, 'confirmed', '2025-11-02T00:00:00Z', eng.wsB],
  ].map(([n, status, at, ws]) => ({
    id: b(n as number),
    workspace_id: (ws as string) ?? eng.wsA,
    status,
    booking_type: { id: bt, name: 'Tasting' },
    contact: { name: `Guest ${n}`, email: `guest${n}@example.test` },
    starts_at: at,
    ends_at: new Date(Date.parse(at as string) + 3600_000).toISOString(),
    timezone: 'Europe/Paris',
  })),
  voice_interactions: [
    [1, 'call', '2025-11-01T08:00:00Z', 'answered', 'Asked about hours.'],
    [2, 'voice_message', '2025-11-02T08:00:00Z', 'voicemail', 'Please call back.'],
    [3, 'call', '2025-11-03T08:00:00Z', 'missed', null],
    [4, 'call', '2025-11-04T08:00:00Z', 'answered', null, eng.wsB],
  ].map(([n, kind, at, status, transcript, ws]) => ({
    id: v(n as number),
    workspace_id: (ws as string) ?? eng.wsA,
    kind,
    from: `+1555000000${n}`,
    to: '+15559999999',
    status,
    started_at: at,
    duration_seconds: (n as number) * 61,
    transcript,
  })),
};

/** Writes the fixture into `dir` and returns its path (for inProcess/onPort `fixtures`). */
export function writeEngagementFixture(dir: string, extra: Record<string, unknown> = {}): string {
  const file = path.join(dir, 'engagement.json');
  writeFileSync(file, JSON.stringify({ ...fixture, ...extra }));
  return file;
}

/**
 * Registers, in the calling file, one in-process server over the fixture for all of its tests
 * (opened before the first, closed after the last, its fixture's directory removed) and returns
 * accessors to it.
 */
export function engagementPerFile(): { readonly s: InProcess } {
  let s: InProcess | undefined;
  let fixtures: ReturnType<typeof tempDir> | undefined;
  beforeAll(async () => {
    fixtures = tempDir();
    s = await inProcess({ fixtures: [writeEngagementFixture(fixtures.dir)] });
  });
  afterAll(async () => {
    await s?.close();
    fixtures?.cleanup();
  });
  return {
    get s() {
      if (!s) throw new Error('engagementPerFile: no server outside the tests');
      return s;
    },
  };
}
