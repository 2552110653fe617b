import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { generateThreads } from '../support/generate-threads.mjs';
import { BULK_RECORDS } from '../../src/store/json/store.js';
import { DEMO, tempDir } from '../support/server.js';

// docs/server.md, bulk loads: `serve --seed`, `local reset --to <snapshot>` and `local import` of a
// large fixture write the store's snapshot, not one giant journal line. Observable from outside:
// the journal stays near-empty while the server runs, and the data survives a restart and
// round-trips through export byte for byte.

// Just above the threshold, so every load here takes the bulk path; its speed on 100,000 threads is a
// figure of `npm run bench` (test/bench), not of this test.
const THREADS = BULK_RECORDS + 500;
const DEMO_THREADS = (JSON.parse(readFileSync(DEMO, 'utf8')) as { threads: unknown[] }).threads.length;
// A minute on a loaded 2-core host (several engineers' tests at once); seconds on an idle one.
const SLOW = { timeout: 600_000 };
let d: ReturnType<typeof tempDir>;
let fixture: string;
let env: Record<string, string>;
let serve: Awaited<ReturnType<typeof spawnServe>> | undefined;
const data = () => path.join(d.dir, 'store.json');
/** The journal's bytes up to its last record (zeros written ahead are not records). */
const journalBytes = (file: string) =>
  existsSync(`${file}.journal`) ? readFileSync(`${file}.journal`).toString('latin1').replace(/\0+$/, '').length : 0;

beforeAll(() => {
  d = tempDir('wcm-bulk-');
  env = { WCM_CONFIG_DIR: path.join(d.dir, 'config') };
  fixture = path.join(d.dir, 'threads.json');
  writeFileSync(fixture, JSON.stringify(generateThreads({ count: THREADS })));
});
afterAll(async () => {
  serve?.proc.kill('SIGTERM');
  await serve?.proc;
  d?.cleanup();
});

/** The first line matching `re` that the server prints (its output keeps arriving after it listens). */
async function lineOf(lines: string[], re: RegExp): Promise<string> {
  const started = Date.now();
  for (;;) {
    const line = lines.find((l) => re.test(l));
    if (line !== undefined) return line;
    if (Date.now() - started > SLOW.timeout) throw new Error(`no line matching ${re}: ${lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stop(): Promise<void> {
  serve!.proc.kill('SIGTERM');
  await serve!.proc;
  serve = undefined;
}

async function exported(name: string, dataFile = data()): Promise<Buffer> {
  const out = path.join(d.dir, name);
  const r = await wcm(['local', 'export', '--data', dataFile, out], { env, timeout: SLOW.timeout });
  expect(r.exitCode, r.stderr).toBe(0);
  return readFileSync(out);
}

/**
 * The two exports hold the same bytes. Buffer.equals, not toEqual: vitest's deep equality walks a
 * megabyte buffer byte by byte (tens of seconds of CPU per comparison).
 */
function expectSameBytes(actual: Buffer, expected: Buffer, what: string): void {
  if (actual.equals(expected)) return;
  const at = actual.findIndex((b, i) => b !== expected[i]);
  expect.fail(`${what} differs from the first export at ${at === -1 ? 'its end' : `byte ${at}`}`);
}

describe('bulk loads through the snapshot (the built binary)', () => {
  it(
    'serve --seed, reset --to a snapshot and a restart: the journal stays near-empty, the data whole',
    SLOW,
    async () => {
      serve = await spawnServe(['--data', data(), '--seed', DEMO, '--seed', fixture], { env });
      // serve binds first and seeds after, so the `seeded from` line follows `wcm listening`.
      const seededLine = await lineOf(serve.lines, /^seeded from /);
      expect(seededLine).toContain(`${THREADS + DEMO_THREADS} threads`);
      // Its snapshot is written after the start; the line says when it is on disk.
      expect(await lineOf(serve.lines, /^seed saved to /)).toBe(`seed saved to ${data()}`);
      // The seed is in the snapshot; the journal holds only the small writes after it (settings).
      const snapshotSize = statSync(data()).size;
      expect(snapshotSize).toBeGreaterThan(THREADS * 100);
      expect(journalBytes(data())).toBeLessThan(16 * 1024);
      const seeded = await exported('seeded.json');
      expect(JSON.parse(seeded.toString()).threads).toHaveLength(THREADS + DEMO_THREADS);

      const saved = await wcm(['local', 'snapshot', 'save', 'big'], { env, timeout: SLOW.timeout });
      expect(saved.exitCode, saved.stderr).toBe(0);
      const emptied = await wcm(['local', 'reset', '--to', 'empty', '--yes'], { env, timeout: SLOW.timeout });
      expect(emptied.exitCode, emptied.stderr).toBe(0);

      const back = await wcm(['local', 'reset', '--to', 'big'], { env, timeout: SLOW.timeout });
      expect(back.exitCode, back.stderr).toBe(0);
      expect(back.stdout).toContain(`${THREADS + DEMO_THREADS} threads`);
      expect(journalBytes(data())).toBeLessThan(16 * 1024);
      expectSameBytes(await exported('reset.json'), seeded, 'the export after reset --to big');

      // A restart reads it all back; the first page answers.
      await stop();
      serve = await spawnServe(['--data', data()], { env });
      const page = await wcm(['threads', 'ls', '--json', '--limit', '5'], { env });
      expect(page.exitCode, page.stderr).toBe(0);
      expect(JSON.parse(page.stdout)).toHaveLength(5);
      expectSameBytes(await exported('restarted.json'), seeded, 'the export after a restart');
      await stop();
    },
  );

  it('local import (into an empty file, and --replace) round-trips an export byte for byte', SLOW, async () => {
    const other = path.join(d.dir, 'other', 'store.json');
    const first = await wcm(['local', 'import', '--data', other, DEMO, fixture], { env, timeout: SLOW.timeout });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toContain(`${THREADS + DEMO_THREADS} threads`);
    expect(journalBytes(other)).toBe(0);
    const once = await exported('once.json', other);
    expect(JSON.parse(once.toString()).threads).toHaveLength(THREADS + DEMO_THREADS);

    const replaced = await wcm(['local', 'import', '--replace', '--data', other, path.join(d.dir, 'once.json')], {
      env,
      timeout: SLOW.timeout,
    });
    expect(replaced.exitCode, replaced.stderr).toBe(0);
    expectSameBytes(await exported('twice.json', other), once, 'the export after import --replace');
  });
});
