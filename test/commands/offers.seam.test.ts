// `wcm offers ls` through the run(options, factory) seam. Against the real server: finding.server.test.ts.
import { afterEach, beforeEach, expect, it } from 'vitest';
import offersLs from '../../commands/offers/ls.js';
import { SEAM_WS, seamHarness, type SeamHarness } from './harness.js';

const offer = (id: string, unit: number | null, active: boolean) => ({
  id,
  kind: unit === null ? 'contribution' : 'fixed',
  title: `Offer ${id.slice(0, 1)}`,
  currency: 'eur',
  unit_amount_minor: unit,
  active,
});

let h: SeamHarness;
beforeEach(async () => {
  h = await seamHarness((req) => ({
    status: 200,
    body: {
      data: req.url.includes('cursor=o2') ? [offer('2', null, false)] : [offer('1', 2500, true)],
      meta: { request_id: 'r', next_cursor: req.url.includes('cursor=o2') ? null : 'o2' },
    },
  }));
});
afterEach(() => h.close());

it("ls lists the workspace's offers; piped rows leave a contribution's price empty", async () => {
  expect(await h.run(offersLs)).toBe(0);
  expect(h.request()).toEqual({ method: 'GET', path: `/workspaces/${SEAM_WS}/offers`, query: {} });
  expect(h.io.out()).toBe('1\tfixed\tOffer 1\teur\t2500\ttrue\n');
  expect(h.io.err()).toBe('More offers: add --cursor o2 (or --all for every page).\n');
});

it('--all --json follows next_cursor and prints one JSON array of both pages', async () => {
  expect(await h.run(offersLs, { all: true }, { json: true })).toBe(0);
  expect(h.stub.requests.map((_, i) => h.request(i).query)).toEqual([{ limit: '100' }, { limit: '100', cursor: 'o2' }]);
  expect(JSON.parse(h.io.out()).map((o: { id: string }) => o.id)).toEqual(['1', '2']);
});

it('--cursor starts at that page', async () => {
  await h.run(offersLs, { cursor: 'o2' });
  expect(h.request().query).toEqual({ cursor: 'o2' });
  expect(h.io.out()).toBe('2\tcontribution\tOffer 2\teur\t\tfalse\n');
});
