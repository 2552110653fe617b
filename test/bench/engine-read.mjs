// The store interface's read cost on the JSON engine against the calls handlers make today
// (issue 46: "where the async interface costs something on a hot path, measure it").
//   npm run build && node test/bench/engine-read.mjs [CHECKOUT]
// Per operation, after a warm-up, three rounds alternating: store.get against engine.read(get),
// the records repository's page of 50 against engine.read(page of 50), over 1,000 listings.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
const root = path.resolve(process.argv[2] ?? '.');
const { JsonEngine } = await import(path.join(root, 'dist/src/store/json/engine.js'));
const dir = mkdtempSync(path.join(tmpdir(), 'eng-'));
const engine = await JsonEngine.open(path.join(dir, 's.json'));
const store = engine.store;
const ws = '11111111-1111-4111-8111-111111111111';
await engine.load(
  ['listings'],
  Array.from({ length: 1000 }, (_, i) => [
    'listings',
    {
      id: `id${i}`,
      workspace_id: ws,
      title: `L${i}`,
      template_slug: 'faq',
      items: [],
      button_id: null,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    },
  ]),
);
const N = 200000;
const time = async (name, fn) => {
  for (let i = 0; i < 20000; i++) await fn(i);
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await fn(i);
  const ns = Number(process.hrtime.bigint() - t) / N;
  console.log(`${name}: ${ns.toFixed(0)} ns/op`);
};
for (let round = 0; round < 3; round++) {
  await time('store.get (sync, awaited)', (i) => store.get('listings', `id${i % 1000}`));
  await time('engine.read(get)', (i) => engine.read((tx) => tx.get('listings', `id${i % 1000}`)));
  await time('store.records.page (50)', () => store.records.page('listingsByWorkspace', ws, { limit: 50 }));
  await time('engine.read(page 50)', () =>
    engine.read((tx) => tx.page('listings', 'listingsByWorkspace', { partition: ws, limit: 50 })),
  );
}
await engine.close();
rmSync(dir, { recursive: true, force: true });
