// Crashes: SIGKILL the real server at random moments during bursts of writes, restart it, and check
// that every acknowledged write is there and nothing unacknowledged is half there. And a write that
// fails in the file layer answers 500 and leaves memory and disk as they were.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { App } from '../../src/server/app.js';
import { errorLog } from '../../src/server/error-log.js';
import { fileEngine, seedStore } from '../support/seed-store.js';
import { nodeFileLayer, type FileLayer } from '../../src/store/json/files.js';
import type { ListingRecord } from '../../src/store/records.js';
import { Store } from '../../src/store/json/store.js';
import { spawnServe } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';
import { checkAnswer, listingFor, storeState } from './attack.js';

const KILLS = 20;
const WORKERS = 24;
const TITLE = /^crash-(\d+)-(\d+)-(\d+)$/;

/** Every listing on disk whose title this test wrote is whole: the exact record it sent. */
function checkComplete(rec: ListingRecord): void {
  const sent = listingFor(rec.title);
  expect({
    title: rec.title,
    template_slug: rec.template_slug,
    items: rec.items,
    workspace_id: rec.workspace_id,
    button_id: rec.button_id,
  }).toEqual({
    ...sent,
    workspace_id: demo.ws1,
    button_id: null,
  });
  expect(Number.isNaN(Date.parse(rec.created_at))).toBe(false);
}

describe('SIGKILL during bursts of writes (built binary)', () => {
  it(
    `loses no acknowledged write and leaves nothing half written, over ${KILLS} kills`,
    { timeout: 240_000 },
    async () => {
      const tmp = tempDir('wcm-crash-');
      const data = path.join(tmp.dir, 'store.json');
      const acked = new Map<string, string>(); // id → title
      let attempted = 0;
      const unackedPresent = new Set<string>();
      let tornTails = 0;
      try {
        for (let round = 0; round < KILLS; round++) {
          // The server must start every time, on whatever the last kill left behind.
          const server = await spawnServe(['--data', data, '--seed', DEMO]);
          const dispatcher = new Agent({ connections: WORKERS });
          let killed = false;
          let ackedThisRound = 0;
          const worker = async (w: number) => {
            for (let n = 0; !killed; n++) {
              const title = `crash-${round}-${w}-${n}`;
              attempted++;
              try {
                const r = await fetch(`${server.url}/workspaces/${demo.ws1}/lists`, {
                  method: 'POST',
                  headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
                  body: JSON.stringify(listingFor(title)),
                  // @ts-expect-error undici's fetch option
                  dispatcher,
                });
                const j = (await r.json()) as { data: { id: string } };
                if (r.status !== 201) throw new Error(`createListing answered ${r.status} before the kill`);
                // Acknowledged: from here on it must survive any crash.
                acked.set(j.data.id, title);
                ackedThisRound++;
              } catch (err) {
                if (!killed) throw err;
                return;
              }
            }
          };
          const burst = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
          // Let some writes through, then kill at a random moment in the middle of the burst.
          while (ackedThisRound < 5) await new Promise((r) => setTimeout(r, 5));
          await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 150)));
          killed = true;
          server.proc.kill('SIGKILL');
          await server.proc;
          await burst;
          await dispatcher.destroy();
          expect(server.proc.killed || server.proc.signalCode === 'SIGKILL').toBe(true);

          // The disk as the crash left it (read-only, as `wcm local export` would see it).
          const disk = await Store.openReadOnly(data);
          const present = new Map([...disk.values('listings')].map((l) => [l.id, l]));
          for (const [id, title] of acked) {
            expect(present.get(id)?.title, `acknowledged ${title} (${id}) lost after kill ${round + 1}`).toBe(title);
          }
          for (const rec of present.values()) {
            expect(rec.title.startsWith('torn-'), `a torn record came back: ${rec.title}`).toBe(false);
            if (!TITLE.test(rec.title)) continue;
            checkComplete(rec);
            if (!acked.has(rec.id)) unackedPresent.add(rec.id);
          }
          // SIGKILL never tears a write (the kernel finishes it); a power cut can. Every fourth round,
          // leave two thirds of a well-formed record at the journal's end, as a power cut would: the
          // next start must cut it, and it must never appear.
          if (round % 4 === 3) {
            const rec = {
              id: randomUUID(),
              workspace_id: demo.ws1,
              ...listingFor(`torn-${round}`),
              button_id: null,
              created_at: new Date().toISOString(),
            };
            const json = JSON.stringify({ s: 1e9, o: [['listings', rec.id, rec]] });
            const frame = Buffer.from(`${crc32(json).toString(16).padStart(8, '0')} ${json}\n`);
            await fs.appendFile(`${data}.journal`, frame.subarray(0, Math.floor((frame.length * 2) / 3)));
            tornTails++;
          }
        }

        // One last start: recovery cuts any torn tail, and the API shows every acknowledged write.
        const server = await spawnServe(['--data', data]);
        try {
          const listed = new Set<string>();
          let cursor: string | null = null;
          do {
            const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
            const r = await fetch(`${server.url}/workspaces/${demo.ws1}/lists?limit=100${q}`, {
              headers: { authorization: `Bearer ${demo.owner}` },
            });
            expect(r.status).toBe(200);
            const j = (await r.json()) as {
              data: Array<{ id: string; title: string }>;
              meta: { next_cursor: string | null };
            };
            for (const d of j.data) {
              expect(d.title.startsWith('torn-'), `a torn record came back: ${d.title}`).toBe(false);
              listed.add(d.id);
            }
            cursor = j.meta.next_cursor;
          } while (cursor);
          for (const id of acked.keys()) expect(listed.has(id), id).toBe(true);
        } finally {
          server.proc.kill('SIGTERM');
          await server.proc;
        }
        // Figures for the report (visible with --reporter=verbose).
        console.log(
          `crash loop: ${KILLS} kills, ${attempted} writes attempted, ${acked.size} acknowledged and all present, ${unackedPresent.size} unacknowledged (answer lost in the kill) but complete, ${tornTails} torn tails (power-cut style) cut on restart`,
        );
        expect(acked.size).toBeGreaterThanOrEqual(KILLS * 5);
      } finally {
        tmp.cleanup();
      }
    },
  );
});

type Fault = null | 'enospc' | 'torn';

/** The real file layer, with appends that fail on demand: before writing, or after half a write. */
function faultyFiles(): { files: FileLayer; set(f: Fault): void } {
  let fault: Fault = null;
  const files: FileLayer = {
    ...nodeFileLayer,
    async openJournal(file) {
      const real = await nodeFileLayer.openJournal(file);
      return {
        get size() {
          return real.size;
        },
        independentSyncs: real.independentSyncs,
        async writeDurable(buf) {
          if (!fault) return real.writeDurable(buf);
          // The write takes its place either way (the layer's contract). Torn: half the batch
          // reaches the disk, the rest stays zeros; a full disk: nothing of it does.
          const half = fault === 'torn' ? buf.length >> 1 : 0;
          await real.writeDurable(Buffer.concat([buf.subarray(0, half), Buffer.alloc(buf.length - half)]));
          throw Object.assign(new Error(`ENOSPC: no space left on device, write '${file}'`), { code: 'ENOSPC' });
        },
        // Torn: even the clean-up cut fails, the worst a disk can do; the store cuts before its next write.
        truncate: (n) =>
          fault === 'torn'
            ? Promise.reject(Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' }))
            : real.truncate(n),
        close: () => real.close(),
      };
    },
  };
  return { files, set: (f) => (fault = f) };
}

describe('a write that fails in the file layer', () => {
  async function setup() {
    const tmp = tempDir('wcm-fault-');
    const file = path.join(tmp.dir, 'store.json');
    const { files, set } = faultyFiles();
    const store = await Store.open(file, { files });
    await seedStore(store, [DEMO]);
    const errors: unknown[] = [];
    const app = new App({ db: fileEngine(store), around: [errorLog((err) => errors.push(err))] });
    const create = (title: string) =>
      app.handle({
        method: 'POST',
        url: `/v1/workspaces/${demo.ws1}/lists`,
        headers: { host: 'localhost', authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
        body: JSON.stringify(title.startsWith('s') ? { title, template_slug: 'faq' } : listingFor(title)),
      });
    return { tmp, file, set, store, errors, app, create };
  }

  function checkFailed(res: Awaited<ReturnType<App['handle']>>, fault: string) {
    checkAnswer(res, `fault ${fault}`, { internalError: true });
    expect(JSON.parse(res.body).code).toBe('internal_error');
    expect(res.body).not.toContain('ENOSPC');
  }

  it.each([
    ['enospc', 3],
    ['torn', 1],
  ] as const)(
    '(%s, %i at once) answers 500 through the App; memory and disk stay at the previous state',
    async (fault, n) => {
      const { tmp, file, set, store, errors, app, create } = await setup();
      try {
        const before = storeState(store);
        set(fault);
        // Several at once share one group commit, and every one of them must fail.
        const failed = await Promise.all(Array.from({ length: n }, (_, i) => create(`doomed-${i}`)));
        for (const res of failed) checkFailed(res, fault);
        expect(errors).toHaveLength(n);
        expect(storeState(store), 'memory changed by a failed write').toBe(before);
        const listed = await app.handle({
          method: 'GET',
          url: `/v1/workspaces/${demo.ws1}/lists?limit=100`,
          headers: { host: 'localhost', authorization: `Bearer ${demo.owner}` },
        });
        expect(listed.body).not.toContain('doomed');
        // The disk as a crash right now would leave it.
        expect(storeState(await Store.openReadOnly(file)), 'disk changed by a failed write').toBe(before);

        // The store recovers once the disk does, and a reopen sees exactly what memory holds.
        set(null);
        expect((await create('after-fault')).status).toBe(201);
        const after = storeState(store);
        expect(after).not.toBe(before);
        expect(storeState(await Store.openReadOnly(file))).toBe(after);
        await store.close();
        const reopened = await Store.open(file);
        expect(storeState(reopened)).toBe(after);
        await reopened.close();
      } finally {
        await store.close().catch(() => undefined);
        tmp.cleanup();
      }
    },
  );

  it('a batch torn half way whose clean-up also failed, then a shorter write: the data file still opens, with exactly what was acknowledged', async () => {
    const { tmp, file, set, store, create } = await setup();
    try {
      set('torn');
      // Five frames in one group commit; half the bytes land: two whole frames, then a torn one.
      const failed = await Promise.all(Array.from({ length: 5 }, (_, i) => create(`doomed-${i}`)));
      for (const res of failed) checkFailed(res, 'torn batch');
      set(null);
      // Much shorter than the frames it lands on: without a cut, whole doomed frames would follow it.
      expect((await create('s')).status).toBe(201);
      const after = storeState(store);
      expect(after).not.toContain('doomed');
      expect(storeState(await Store.openReadOnly(file))).toBe(after);
      await store.close();
      const reopened = await Store.open(file);
      expect(storeState(reopened)).toBe(after);
      await reopened.close();
    } finally {
      await store.close().catch(() => undefined);
      tmp.cleanup();
    }
  });
});

describe('SIGKILL during a reset (built binary)', () => {
  it(
    'a reset killed at any moment leaves the old state or the new one, never a mix',
    { timeout: 180_000 },
    async () => {
      const tmp = tempDir('wcm-crash-reset-');
      const data = path.join(tmp.dir, 'store.json');
      const admin = `wcm_admin_${'c'.repeat(32)}`;
      const env = { WCM_ADMIN_TOKEN: admin, WCM_CONFIG_DIR: tmp.dir };
      const control = (url: string, p: string, body: unknown) =>
        fetch(`${new URL(url).origin}/_emulator${p}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const stateOnDisk = async () => {
        const store = await Store.openReadOnly(data);
        try {
          return storeState(store);
        } finally {
          await store.close();
        }
      };
      try {
        // Two known states: b = the demo data, a = the demo data and 300 more listings.
        let server = await spawnServe(['--data', data, '--seed', DEMO], { env });
        expect((await control(server.url, '/snapshots', { name: 'b' })).status).toBe(201);
        // Ten writers at once (one by one, the 300 requests were a quarter of this test's time).
        const url = server.url;
        const writer = async (w: number) => {
          for (let i = w; i < 300; i += 10) {
            const r = await fetch(`${url}/workspaces/${demo.ws1}/lists`, {
              method: 'POST',
              headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
              body: JSON.stringify(listingFor(`reset-${i}`)),
            });
            expect(r.status).toBe(201);
          }
        };
        await Promise.all(Array.from({ length: 10 }, (_, w) => writer(w)));
        expect((await control(server.url, '/snapshots', { name: 'a' })).status).toBe(201);
        // A named snapshot is a snapshot file of the store's own: read as a store, it is the state.
        const savedState = async (name: string) => {
          const store = await Store.openReadOnly(`${data}.snapshots/${name}.json`);
          try {
            return storeState(store);
          } finally {
            await store.close();
          }
        };
        const states = { a: await savedState('a'), b: await savedState('b') };
        let before: 'a' | 'b' = 'a';
        for (let round = 0; round < 10; round++) {
          const to: 'a' | 'b' = before === 'a' ? 'b' : 'a';
          const pending = control(server.url, '/reset', { to }).catch(() => undefined);
          await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 40)));
          server.proc.kill('SIGKILL');
          await server.proc;
          await pending;
          const now = await stateOnDisk();
          const which: 'a' | 'b' | null = now === states[to] ? to : now === states[before] ? before : null;
          expect(
            which,
            `round ${round}: the state after the kill is neither the old (${before}) nor the new (${to}) one`,
          ).not.toBeNull();
          before = which!;
          server = await spawnServe(['--data', data], { env });
        }
        server.proc.kill('SIGKILL');
        await server.proc;
      } finally {
        tmp.cleanup();
      }
    },
  );
});
