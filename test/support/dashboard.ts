import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppResponse } from '../../src/server/app.js';
import type { Sessions } from '../../src/server/web/session.js';
import { DEMO, demo, inProcess, sendJson, tempDir, TestClock, type InProcess } from './server.js';

/** What a hostile visitor typed: each must show as text and run nothing. */
export const HOSTILE = {
  body: '<script>window.__wcmPwned = "script"</script><img src=x onerror="window.__wcmPwned = \'img\'">',
  subject: '<script>window.__wcmPwned = "subject"</script>Help & "quotes"',
  contact: '"><img src=x onerror=alert(1)>',
  listing: '<svg onload="window.__wcmPwned = \'listing\'">Menu',
} as const;

/** A token of Dee (member of Civic Help Desk only) with every read ability, to ask the API the same questions. */
export const DEE_READS_ALL = 'wcm_pat_deeReadsEverything0123456789abcdefghijk';
export const hostileThread = '00000000-0000-4000-8000-00000000a001';
export const hostileListing = '00000000-0000-4000-8000-00000000b001';
/** Extra open threads in Acme Coffee, so its inbox spans two pages of 50 (24 + 61 = 85). */
export const EXTRA_THREADS = 60;
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** A fixture on top of demo.json: a thread and a listing full of markup, and enough threads to page. */
export function writeDashboardFixture(dir: string): string {
  const threads = [];
  for (let i = 0; i < EXTRA_THREADS; i++) {
    threads.push({
      id: uuid(0x1000 + i),
      workspace_id: demo.ws1,
      subject: `Paging thread ${String(i).padStart(2, '0')}`,
      status: 'open',
      unread: i % 3 === 0,
      contact: { id: uuid(0x2000 + i), name: `Pager ${i}`, email: `pager${i}@mail.example` },
      messages: [
        {
          id: uuid(0x3000 + i),
          channel: i % 2 ? 'email' : 'web_chat',
          direction: 'inbound',
          body: `Message number ${i}`,
          created_at: new Date(Date.UTC(2026, 6, 1, 0, i)).toISOString(),
        },
      ],
    });
  }
  threads.push({
    id: hostileThread,
    workspace_id: demo.ws1,
    subject: HOSTILE.subject,
    status: 'open',
    unread: true,
    starred: true,
    contact: { id: uuid(0x4000), name: HOSTILE.contact, email: 'eve@mail.example' },
    messages: [
      {
        id: uuid(0x5000),
        channel: 'web_chat',
        direction: 'inbound',
        body: HOSTILE.body,
        created_at: '2026-11-21T10:00:00Z',
      },
      {
        id: uuid(0x5001),
        channel: 'web_chat',
        direction: 'outbound',
        body: 'We never run what you send.\nSecond line.',
        created_at: '2026-11-21T10:05:00Z',
      },
    ],
  });
  const file = path.join(dir, 'dashboard-fixture.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      tokens: [
        {
          token: DEE_READS_ALL,
          user_id: 'usr_dee',
          name: 'dee-reads',
          abilities: ['workspaces:read', 'content:read', 'engagements:read'],
          expires_at: null,
        },
      ],
      threads,
      listings: [
        {
          id: hostileListing,
          workspace_id: demo.ws1,
          title: HOSTILE.listing,
          template_slug: 'faq',
          items: [{ title: '<b>bold?</b>', description: HOSTILE.body }],
          created_at: '2026-11-21T09:00:00Z',
        },
      ],
      orders: [
        {
          id: uuid(0x6000),
          workspace_id: demo.ws1,
          offer_id: demo.offerFixedUsd,
          payment_state: 'paid',
          quantity: 2,
          amount_total: 5000,
          currency: 'usd',
          application_fee_amount: 150,
          payment_intent_id: 'pi_local_dashboard1',
          customer_name: HOSTILE.contact,
          customer_email: 'buyer@mail.example',
          created_at: '2026-11-20T10:00:00Z',
          updated_at: '2026-11-20T10:01:00Z',
        },
      ],
      analytics_events: [
        {
          id: uuid(0x7000),
          type: 'agent.chat_opened',
          workspace_id: demo.ws1,
          agent_id: demo.agent1,
          occurred_at: '2026-11-20T11:00:00Z',
        },
      ],
    }),
  );
  return file;
}

export interface DashboardEnv extends InProcess {
  clock: TestClock;
  sessions: Sessions;
  /** GET (or another method) as the browser holding `cookie` would send it. */
  page(url: string, cookie?: string, method?: string): Promise<AppResponse>;
  /** Signs in through the account chooser; the session cookie (`wcm_session=…`). */
  signInAs(userId: string): Promise<string>;
  /** Signs in with a personal access token (a server not on loopback); the session cookie. */
  signInWith(token: string): Promise<string>;
  /** A v1 call with a bearer token, parsed. */
  api(url: string, token?: string): Promise<AppResponse & { json: any }>;
}

/** The real App and store (demo plus the dashboard fixture) with the dashboard and assets mounted. */
export async function dashboardEnv(opts: { loopback?: boolean } = {}): Promise<DashboardEnv> {
  // Loaded here, not at the top: the browser tests use only the fixture and spawn the binary.
  const [{ App }, { dashboardRoutes }, { assetRoutes }, { Sessions }, { CLOCK_OFFSET_SETTING }] = await Promise.all([
    import('../../src/server/app.js'),
    import('../../src/server/dashboard/mount.js'),
    import('../../src/server/web/assets.js'),
    import('../../src/server/web/session.js'),
    import('../../src/store/engine/interface.js'),
  ]);
  const fixtureDir = tempDir();
  const clock = new TestClock();
  const base = await inProcess({ fixtures: [DEMO, writeDashboardFixture(fixtureDir.dir)], clock });
  fixtureDir.cleanup();
  const db = base.db;
  // The PostgreSQL engine reads the database's clock: put it at the test's by the offset setting.
  if (db.kind === 'postgres') {
    const off = clock.now().getTime() - (await db.read((tx) => tx.now()));
    await db.write((tx) => tx.put('settings', { id: CLOCK_OFFSET_SETTING, value: off }));
  }
  const sessions = new Sessions(db);
  const app = new App({
    db,
    clock,
    routes: [assetRoutes(), dashboardRoutes({ sessions, loopback: opts.loopback ?? true })],
  });
  const page = (url: string, cookie?: string, method = 'GET') =>
    app.handle({ method, url, headers: { host: 'localhost', ...(cookie ? { cookie } : {}) } });
  /** The sign-in form, filled with `fields` (the chooser's user or a token) and sent. */
  const submitSignIn = async (fields: string) => {
    const form = await page('/dashboard/sign-in');
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)![1];
    const csrfCookie = form.headers['Set-Cookie'].split(';')[0];
    const res = await app.handle({
      method: 'POST',
      url: '/dashboard/sign-in',
      headers: { host: 'localhost', cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${encodeURIComponent(csrf)}&${fields}`,
    });
    if (res.status !== 303) throw new Error(`sign-in with ${fields.split('=')[0]} answered ${res.status}`);
    return res.headers['Set-Cookie'].split(';')[0];
  };
  // base's own accessors (the file store) stay lazy: spreading them would read them now.
  return Object.assign(Object.create(base) as InProcess, {
    app,
    clock,
    sessions,
    close: () => base.close(),
    request: (r: Parameters<InProcess['request']>[0]) => sendJson(app, r),
    page,
    api: (url: string, token = demo.owner) => sendJson(app, { url, token }),
    signInAs: (userId: string) => submitSignIn(`user=${encodeURIComponent(userId)}`),
    signInWith: (token: string) => submitSignIn(`token=${encodeURIComponent(token)}`),
  });
}
