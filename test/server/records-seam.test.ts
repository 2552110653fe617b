import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { memoryRecords, type TxReads } from '../../src/store/record-repository.js';
import { INDEXES } from '../../src/store/indexes.js';
import { RECORD_TABLE_COLLECTIONS } from '../../src/store/pg/records.js';
import type { CollectionName, Tx } from '../../src/store/records.js';
import type { Store } from '../../src/store/store.js';
import { dashboardEnv, hostileListing, type DashboardEnv } from '../support/dashboard.js';
import { demo } from '../support/server.js';
import { SECRET, openedUrl, payUrl, publicApp, type PublicApp } from './payments/harness.js';

/**
 * On PostgreSQL the areas' records live in a table, not in the process: a synchronous read of them
 * throws there, and so does a transaction's `tx.get` of a record it did not name in its reads. This
 * JSON store refuses both the same way, so every handler and dashboard page below must read through
 * store.records (and name what its transactions read) to answer at all.
 */
// Exactly what the PostgreSQL store keeps in its records table.
const AREAS: ReadonlySet<CollectionName> = RECORD_TABLE_COLLECTIONS;
const AREA_INDEXES = new Set(
  Object.entries(INDEXES)
    .filter(([, def]) => AREAS.has(def.collection))
    .map(([name]) => name),
);

/** What the store was asked for that it does not hold in the process, in the order asked. */
const refused: string[] = [];
const refuse = (what: string): never => {
  refused.push(what);
  throw new Error(`${what}: read it through store.records`);
};

function refuseSyncReads(store: Store): void {
  const s = store as unknown as Record<string, (...a: unknown[]) => unknown>;
  const real = { get: s.get.bind(store), index: s.index.bind(store) };
  store.records = memoryRecords(real as never);
  for (const m of ['get', 'values', 'valuesInOrder', 'ids', 'count']) {
    const own = s[m].bind(store);
    s[m] = (c, ...rest) => (AREAS.has(c as CollectionName) ? refuse(`store.${m}('${String(c)}')`) : own(c, ...rest));
  }
  s.index = (name) => (AREA_INDEXES.has(name as string) ? refuse(`store.index('${String(name)}')`) : real.index(name));
  const transact = store.transact.bind(store);
  store.transact = <T>(fn: (tx: Tx) => T, reads: TxReads = []) =>
    transact((tx) => {
      const named = new Set(reads.map(([c, id]) => `${c}/${id}`));
      const get: Tx['get'] = (c, id) =>
        AREAS.has(c) && !named.has(`${c}/${id}`) ? refuse(`tx.get('${c}', '${id}') not in reads`) : tx.get(c, id);
      return fn(new Proxy(tx, { get: (t, p) => (p === 'get' ? get : Reflect.get(t, p)) }));
    }, reads);
}

/** On PostgreSQL (the postgres project) the store refuses such reads itself. */
const onPostgres = process.env.WCM_TEST_STORE === 'postgres';

let env: DashboardEnv;
let ada: string;
beforeAll(async () => {
  env = await dashboardEnv();
  ada = await env.signInAs('usr_ada');
  if (!onPostgres) refuseSyncReads(env.store);
});
// Each test answers for its own reads.
beforeEach(() => {
  refused.length = 0;
});
afterAll(() => env.close());

const w = demo.ws1;
const list = demo.knowledgeList;
const v1 = `/v1/workspaces/${w}`;

describe('the API reads the areas through store.records', () => {
  it.each([
    `${v1}/lists`,
    `${v1}/lists/${hostileListing}`,
    `${v1}/forms`,
    `${v1}/forms/${demo.formCatering}`,
    `${v1}/pages`,
    `${v1}/pages?published=true`,
    `${v1}/pages/${demo.pageAcme}`,
    `${v1}/knowledge-lists`,
    `${v1}/knowledge-lists/${list}/articles`,
    `${v1}/knowledge-lists/${list}/articles/${demo.article4Versions}`,
    `${v1}/bookings?from=2025-01-01T00:00:00Z`,
    `${v1}/voice-interactions`,
    `${v1}/offers`,
    `${v1}/agents`,
  ])('GET %s answers 200', async (url) => {
    const res = await env.api(url);
    expect({ status: res.status, refused }).toEqual({ status: 200, refused: [] });
  });

  it('updates forms and pages and restores an article version, naming what each transaction reads', async () => {
    const patches = [
      [`${v1}/forms/${demo.formCatering}`, { name: 'Catering quote' }],
      [`${v1}/pages/${demo.pageAcme}`, { seo_title: 'Acme' }],
    ] as const;
    for (const [url, json] of patches) {
      const res = await env.request({ method: 'PATCH', url, token: demo.owner, json });
      expect({ status: res.status, refused }).toEqual({ status: 200, refused: [] });
    }
    const restore = await env.request({
      method: 'POST',
      url: `${v1}/knowledge-lists/${list}/articles/${demo.article4Versions}/versions/1/restore`,
      token: demo.owner,
      json: {},
    });
    expect({ status: restore.status, refused }).toEqual({ status: 201, refused: [] });
  });
});

describe('the dashboard reads the areas through store.records', () => {
  const ws = (rest = '') => `/dashboard/workspaces/${w}${rest}`;
  it.each([
    '/dashboard',
    ws(),
    ws('/lists'),
    ws(`/lists/${hostileListing}`),
    ws('/forms'),
    ws('/pages'),
    ws('/knowledge'),
    ws(`/knowledge/${list}`),
    ws(`/knowledge/${list}/articles/${demo.article4Versions}`),
    ws(`/threads/${demo.newestThread}`),
    ws('/bookings'),
    ws('/orders'),
    ws('/events'),
  ])('%s answers 200', async (url) => {
    const res = await env.page(url, ada);
    expect({ status: res.status, refused }).toEqual({ status: 200, refused: [] });
  });

  it.each([
    [demo.formCatering, ws(`/forms/${demo.formCatering}`)],
    [demo.article4Versions, ws(`/knowledge/${list}/articles/${demo.article4Versions}`)],
  ])('open/%s finds the record', async (id, where) => {
    const res = await env.page(ws(`/open/${id}`), ada);
    expect({ status: res.status, location: res.headers.Location, refused }).toEqual({
      status: 303,
      location: where,
      refused: [],
    });
  });
});

describe('the public commerce and analytics calls and payment notifications read through store.records', () => {
  let s: PublicApp;
  beforeAll(async () => {
    s = await publicApp();
    refuseSyncReads(s.store);
  });
  afterAll(() => s.close());

  const deliver = (evt: { data: { object: Record<string, unknown> } } & Record<string, unknown>) => {
    const payload = JSON.stringify(evt);
    const at = Math.floor(s.clock.now().getTime() / 1000);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: at });
    return s.request({
      url: '/v1/webhooks/payments',
      body: payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    });
  };
  const intentEvent = (id: string, type: string, object: Record<string, unknown>) => ({
    id,
    object: 'event',
    type,
    created: 1,
    livemode: false,
    data: { object: { object: 'payment_intent', amount: 2500, currency: 'usd', ...object } },
  });

  it('records a chat opening, takes an order, and applies its notifications found by metadata and by intent', async () => {
    const opened = await s.request({
      url: openedUrl(demo.agent1),
      key: 'seam-key-0001',
      json: {},
    });
    expect({ status: opened.status, refused }).toEqual({ status: 201, refused: [] });
    const paid = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'seam-key-0002', json: {} });
    expect({ status: paid.status, refused }).toEqual({ status: 201, refused: [] });
    const { order, payment_intent: pi } = paid.json.data;
    // By the order id in the metadata, then (no metadata) by the payment intent alone.
    const byMeta = await deliver(
      intentEvent('evt_seam_1', 'payment_intent.succeeded', { id: pi.id, metadata: { order_id: order.id } }),
    );
    expect({ data: byMeta.json.data, refused }).toEqual({
      data: { received: true, event_id: 'evt_seam_1', applied: true },
      refused: [],
    });
    const refund = {
      id: 'evt_seam_2',
      object: 'event',
      type: 'charge.refunded',
      created: 1,
      livemode: false,
      data: { object: { id: 'ch_seam', object: 'charge', payment_intent: pi.id, refunded: true, metadata: {} } },
    };
    const byIntent = await deliver(refund);
    expect({ data: byIntent.json.data, refused }).toEqual({
      data: { received: true, event_id: 'evt_seam_2', applied: true },
      refused: [],
    });
    const again = await deliver(refund);
    expect({ data: again.json.data, refused }).toEqual({
      data: { received: true, event_id: 'evt_seam_2', applied: false },
      refused: [],
    });
    const unknown = await deliver(
      intentEvent('evt_seam_3', 'payment_intent.succeeded', { id: 'pi_nobody', metadata: {} }),
    );
    expect({ data: unknown.json.data, refused }).toEqual({
      data: { received: true, event_id: 'evt_seam_3', applied: false },
      refused: [],
    });
  });
});
