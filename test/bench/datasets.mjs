#!/usr/bin/env node
// Deterministic benchmark data sets, written to an ignored directory (never committed):
//   threads-N/fixture.json   store fixture for `wcm serve --seed` (N threads with messages)
//   threads-N/db.json        the same threads for json-server 0.17, as the records the API lists
//   listings-N/fixture.json  store fixture holding N listings
//   listings-N/db.json       the same listings for json-server
// The same seed and sizes always give the same bytes, so runs on different machines compare.
//
//   node test/bench/datasets.mjs [--dir test/bench/.data] [--threads 100000] [--listings 100000]
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when the shape of generated data changes, so cached sets are rebuilt. */
export const GENERATOR_VERSION = 3;

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DEFAULT_DIR = process.env.WCM_BENCH_DIR ?? path.join(ROOT, 'test/bench/.data');

const CHANNELS = ['email', 'web_chat', 'form', 'whatsapp'];
const CHANNEL_WEIGHTS = [0.45, 0.3, 0.15, 0.1];
const TEMPLATES = ['faq', 'links', 'menu', 'services', 'team', 'pricing', 'hours'];
const FIRST = [
  'Ada',
  'Bo',
  'Chen',
  'Dara',
  'Emil',
  'Fatou',
  'Gita',
  'Hugo',
  'Ines',
  'Jon',
  'Kemal',
  'Lena',
  'Mika',
  'Nour',
  'Olu',
  'Pia',
  'Quinn',
  'Rosa',
  'Sami',
  'Tove',
];
const LAST = [
  'Lovelace',
  'Okafor',
  'Wang',
  'Silva',
  'Novak',
  'Diallo',
  'Rao',
  'Martin',
  'Costa',
  'Berg',
  'Yilmaz',
  'Keller',
  'Sato',
  'Haddad',
  'Adeyemi',
  'Lind',
];
const WORDS = (
  'order delivery invoice refund booking table tomorrow evening question price menu opening hours ' +
  'thanks hello please could you tell me whether there is still availability for two people at eight ' +
  'we would like to change the address on the account and receive a new receipt by email today'
).split(' ');
const SUBJECTS = [
  'Order',
  'Booking request',
  'Invoice',
  'Question about prices',
  'Opening hours',
  'Refund',
  'Delivery',
  'Partnership',
  null,
];

/** mulberry32: small, fast, deterministic. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    chance: (p) => next() < p,
    weighted: (items, weights) => {
      let r = next();
      for (let i = 0; i < items.length; i++) if ((r -= weights[i]) < 0) return items[i];
      return items[items.length - 1];
    },
    uuid: () => {
      let h = '';
      for (let i = 0; i < 4; i++)
        h += Math.floor(next() * 4294967296)
          .toString(16)
          .padStart(8, '0');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[Math.floor(next() * 4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
  };
}

function sentence(r, min, max) {
  const n = r.int(min, max);
  const w = [];
  for (let i = 0; i < n; i++) w.push(r.pick(WORDS));
  const s = w.join(' ');
  return s[0].toUpperCase() + s.slice(1) + '.';
}

/** The people, workspaces and the one token every data set shares (seeded, so ids are stable). */
export function accounts() {
  const r = rng(7);
  const users = [1, 2, 3, 4].map((i) => ({ id: `usr_bench_${i}`, name: `Bench ${i}`, email: `bench${i}@example.com` }));
  const workspaces = ['Main', 'North', 'South', 'West'].map((name, i) => ({
    id: r.uuid(),
    name: `${name} workspace`,
    stripe_account_id: null,
    // usr_bench_1 owns every workspace, so one token reaches them all.
    members: [{ user_id: 'usr_bench_1', role: 'owner' }, ...(i ? [{ user_id: users[i].id, role: 'member' }] : [])],
  }));
  const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let token = 'wcm_pat_';
  for (let i = 0; i < 40; i++) token += B62[r.int(0, 61)];
  const tokens = [
    {
      token,
      user_id: 'usr_bench_1',
      name: 'bench',
      abilities: ['content:read', 'content:write', 'engagements:read'],
      expires_at: null,
    },
  ];
  return { users, workspaces, tokens, token, workspaceId: workspaces[0].id };
}

/** Which workspace a record goes to: most to the main one, the rest spread over the others. */
function workspaceFor(r, workspaces) {
  const x = r.next();
  return x < 0.85 ? workspaces[0].id : workspaces[1 + (Math.floor(((x - 0.85) / 0.15) * 3) % 3)].id;
}

const T0 = Date.parse('2024-01-01T00:00:00.000Z');

/** A thread's summary as listThreads shows it (docs/api-behaviour.md, threads), computed from its messages. */
export function threadSummary(t) {
  const last = t.messages[t.messages.length - 1];
  const channels = [];
  for (const m of t.messages) if (!channels.includes(m.channel)) channels.push(m.channel);
  return {
    id: t.id,
    contact: t.contact,
    channels,
    subject: t.subject,
    status: t.status,
    unread: t.unread,
    starred: t.starred,
    last_message_at: last?.created_at ?? null,
    last_message_preview: last ? last.body.slice(0, 140) : null,
    message_count: t.messages.length,
  };
}

export function generateThreads(n) {
  const r = rng(1000 + n);
  const { workspaces } = accounts();
  const threads = [];
  for (let i = 0; i < n; i++) {
    // The last message of thread i is in its own 5-minute slot: last_message_at is unique, so every
    // server's "newest first" agrees without relying on a tie-break.
    const lastAt = T0 + i * 300_000 + r.int(0, 299_000);
    const count = r.int(1, 5);
    let channel = r.weighted(CHANNELS, CHANNEL_WEIGHTS);
    const messages = [];
    let at = lastAt;
    const times = [];
    for (let k = 0; k < count; k++) {
      times.unshift(at);
      at -= r.int(60_000, 36 * 3_600_000);
    }
    for (let k = 0; k < count; k++) {
      if (k && r.chance(0.2)) channel = r.weighted(CHANNELS, CHANNEL_WEIGHTS);
      messages.push({
        id: r.uuid(),
        channel,
        direction: k % 2 === 0 ? 'inbound' : 'outbound',
        body: sentence(r, 4, 40),
        created_at: new Date(times[k]).toISOString(),
      });
    }
    const first = r.pick(FIRST);
    const last = r.pick(LAST);
    const status = r.chance(0.8) ? 'open' : 'closed';
    threads.push({
      id: r.uuid(),
      workspace_id: workspaceFor(r, workspaces),
      subject: r.pick(SUBJECTS),
      status,
      unread: status === 'open' && r.chance(0.3),
      starred: r.chance(0.08),
      contact: {
        id: r.uuid(),
        name: `${first} ${last}`,
        email: `${first}.${last}${i}@example.com`.toLowerCase(),
        phone: r.chance(0.5) ? `+3361${String(i).padStart(7, '0')}` : null,
      },
      messages,
    });
  }
  return threads;
}

export function generateListings(n) {
  const r = rng(2000 + n);
  const { workspaces } = accounts();
  const listings = [];
  for (let i = 0; i < n; i++) {
    const items = [];
    for (let k = r.int(0, 5); k > 0; k--) {
      items.push(
        r.chance(0.7) ? { title: sentence(r, 1, 5), description: sentence(r, 3, 20) } : { title: sentence(r, 1, 5) },
      );
    }
    listings.push({
      id: r.uuid(),
      workspace_id: n <= 1000 ? workspaces[0].id : workspaceFor(r, workspaces),
      title: sentence(r, 1, 6),
      template_slug: r.pick(TEMPLATES),
      items,
      button_id: null,
      created_at: new Date(T0 + i * 60_000 + r.int(0, 59_000)).toISOString(),
    });
  }
  return listings;
}

/** The filtered page the read benchmark asks for, computed from the data itself (newest first). */
export function expectedThreadPage(threads, { workspaceId, view, channel, limit }) {
  const match = (t) =>
    t.workspace_id === workspaceId &&
    (view === 'inbox'
      ? t.status === 'open'
      : view === 'unread'
        ? t.status === 'open' && t.unread
        : view === 'starred'
          ? t.starred
          : t.status === 'closed') &&
    (!channel || t.messages.some((m) => m.channel === channel));
  const last = (t) => t.messages[t.messages.length - 1].created_at;
  return threads
    .filter(match)
    .sort((a, b) => (last(a) < last(b) ? 1 : last(a) > last(b) ? -1 : 0))
    .slice(0, limit);
}

function writeJson(file, value) {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify(value));
  renameSync(tmp, file);
}

/**
 * Writes (or reuses, when the manifest matches) every data set for these sizes; returns their paths
 * and what a benchmark needs to address them (token, workspace).
 */
export function ensureDatasets({
  dir = DEFAULT_DIR,
  threads = 100_000,
  listings = 100_000,
  smallListings = 100,
  log = () => {},
} = {}) {
  const acc = accounts();
  const base = { version: 1, users: acc.users, workspaces: acc.workspaces, tokens: acc.tokens };
  const sets = {};
  const make = (name, build) => {
    const d = path.join(dir, name);
    const manifest = path.join(d, 'manifest.json');
    const want = { generator: GENERATOR_VERSION, name };
    let have = null;
    try {
      have = JSON.parse(readFileSync(manifest, 'utf8'));
    } catch {
      /* gone already, or not there: nothing to do */
    }
    if (
      !have ||
      have.generator !== want.generator ||
      !existsSync(path.join(d, 'fixture.json')) ||
      !existsSync(path.join(d, 'db.json'))
    ) {
      const t = Date.now();
      mkdirSync(d, { recursive: true });
      const { fixture, db, extra } = build();
      writeJson(path.join(d, 'fixture.json'), fixture);
      writeJson(path.join(d, 'db.json'), db);
      have = { ...want, ...extra };
      writeFileSync(manifest, JSON.stringify(have, null, 2));
      log(`generated ${name} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
    sets[name] = { dir: d, fixture: path.join(d, 'fixture.json'), db: path.join(d, 'db.json'), ...have };
    return sets[name];
  };
  const t = make(`threads-${threads}`, () => {
    const recs = generateThreads(threads);
    const query = { workspaceId: acc.workspaceId, view: 'inbox', channel: 'whatsapp', limit: 50 };
    const page = expectedThreadPage(recs, query);
    const inMain = recs.filter((x) => x.workspace_id === acc.workspaceId);
    return {
      fixture: { ...base, threads: recs },
      // json-server gets the records the API lists (the summary fields plus the workspace).
      db: { threads: recs.map((x) => ({ ...threadSummary(x), workspace_id: x.workspace_id })) },
      extra: {
        count: recs.length,
        query,
        expectedIds: page.map((x) => x.id),
        expectedPage: page.map(threadSummary),
        inboxCountMain: inMain.filter((x) => x.status === 'open').length,
        digest: createHash('sha256').update(JSON.stringify(recs)).digest('hex').slice(0, 16),
      },
    };
  });
  const mkListings = (n, name) =>
    make(name, () => {
      const recs = generateListings(n);
      return {
        fixture: { ...base, listings: recs },
        db: { listings: recs },
        extra: {
          count: recs.length,
          digest: createHash('sha256').update(JSON.stringify(recs)).digest('hex').slice(0, 16),
        },
      };
    });
  mkListings(listings, `listings-${listings}`);
  mkListings(smallListings, `listings-small-${smallListings}`);
  return {
    token: acc.token,
    workspaceId: acc.workspaceId,
    threads: t,
    listings: sets[`listings-${listings}`],
    smallListings: sets[`listings-small-${smallListings}`],
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(`--${name}`);
    return i === -1 ? dflt : process.argv[i + 1];
  };
  const out = ensureDatasets({
    dir: path.resolve(arg('dir', DEFAULT_DIR)),
    threads: Number(arg('threads', 100_000)),
    listings: Number(arg('listings', 100_000)),
    log: (l) => console.error(l),
  });
  console.log(
    JSON.stringify(
      {
        token: out.token,
        workspaceId: out.workspaceId,
        threads: out.threads.fixture,
        listings: out.listings.fixture,
        smallListings: out.smallListings.fixture,
      },
      null,
      2,
    ),
  );
}
