// Named snapshots (docs/server.md#controlling-a-running-server-reset-snapshots-faults-clock-request-log) in the store's own snapshot format: a reset to one swaps the
// file in and reads it as a cold start does (docs/server.md, bulk loads). Over a real socket, on a
// store holding more than BULK_RECORDS threads, so the threads' sections are lazy ones.
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportFixture } from '../../src/store/fixtures/import.js';
import { BULK_RECORDS, Store } from '../../src/store/json/store.js';
import { generateThreads } from '../support/generate-threads.mjs';
import { DEMO, demo, onPort, tempDir } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let fixtures: ReturnType<typeof tempDir>;
const THREADS = BULK_RECORDS + 200;
const DEMO_THREADS = (JSON.parse(readFileSync(DEMO, 'utf8')) as { threads: unknown[] }).threads.length;

beforeAll(async () => {
  fixtures = tempDir('wcm-named-');
  const threads = path.join(fixtures.dir, 'threads.json');
  writeFileSync(threads, JSON.stringify(generateThreads({ count: THREADS })));
  server = await onPort({ fixtures: [DEMO, threads] });
});
afterAll(async () => {
  await server?.close();
  fixtures?.cleanup();
});

const dataFile = () => path.join(server.dir, 'store.json');
const savedFile = (name: string) => `${dataFile()}.snapshots/${name}.json`;
const state = (store: Store) => JSON.stringify(exportFixture(store));
// Idle sockets are let go well before the server's 5 s keep-alive ends: a restart read on a loaded
// machine takes longer than that, and a POST on a socket the server is closing fails.
const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
const control = async (method: string, p: string, body?: unknown) => {
  const res = await fetch(`${new URL(server.url).origin}/_emulator${p}`, {
    method,
    headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher,
  });
  return { status: res.status, json: (await res.json()) as { code?: string; detail?: string; data?: any } };
};
const addListing = (title: string) =>
  fetch(`${server.url}/workspaces/${demo.ws1}/lists`, {
    method: 'POST',
    headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title, template_slug: 'faq' }),
    dispatcher,
  });
/** The data file as a restart reads it (a copy, opened while the server holds the lock). */
async function restarted(): Promise<Store> {
  const copy = path.join(fixtures.dir, `restart-${Date.now()}.json`);
  copyFileSync(dataFile(), copy);
  if (existsSync(`${dataFile()}.journal`)) copyFileSync(`${dataFile()}.journal`, `${copy}.journal`);
  return Store.open(copy, { readOnly: true });
}

describe('named snapshots in the store format', () => {
  it('save writes a snapshot file without the settings; reset swaps it in whole and keeps the settings', async () => {
    const secret = (await control('GET', '/webhook-secret')).json.data.secret;
    expect((await control('POST', '/snapshots', { name: 'base' })).status).toBe(201);
    const saved = readFileSync(savedFile('base'));
    expect(saved.toString('utf8', 0, 40)).toMatch(/^\{"format":"wcm-store","version":2,/);
    const asStore = await Store.openReadOnly(savedFile('base'));
    expect(asStore.count('settings')).toBe(0);
    expect(asStore.count('threads')).toBe(THREADS + DEMO_THREADS);
    await asStore.close();
    const atSave = state(server.store);

    expect((await addListing('After the snapshot')).status).toBe(201);
    expect(state(server.store)).not.toBe(atSave);
    const reset = await control('POST', '/reset', { to: 'base' });
    expect(reset.status).toBe(200);
    expect(reset.json.data.records.threads).toBe(THREADS + DEMO_THREADS);
    expect(state(server.store)).toBe(atSave);

    // The data file is the saved file itself (linked, no record copied or re-encoded), its header
    // and settings line rewritten in place; the journal holds nothing of the old state.
    expect(statSync(dataFile()).ino).toBe(statSync(savedFile('base')).ino);
    const data = readFileSync(dataFile());
    const records = saved.indexOf(10, saved.indexOf(10) + 1) + 1;
    // Buffers compared with equals(): toEqual on a megabyte blocks the loop the server runs on.
    expect(data.subarray(records).equals(saved.subarray(records))).toBe(true);
    expect(data.includes('"collection":"settings","records":[{')).toBe(true);
    expect(readFileSync(`${dataFile()}.journal`).toString('latin1').replace(/\0+$/, '')).toBe('');
    // The settings stayed: the same admin token and signing secret; the owner's token works.
    expect((await control('GET', '/webhook-secret')).json.data.secret).toBe(secret);
    expect(
      (await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${demo.owner}` }, dispatcher })).status,
    ).toBe(200);

    // Writes after it are journaled on top of it, and a restart reads both.
    expect((await addListing('After the reset')).status).toBe(201);
    const again = await restarted();
    try {
      expect(state(again)).toBe(state(server.store));
      expect(again.get('settings', 'emulator.seed_files')).toBeDefined();
    } finally {
      await again.close();
    }

    // Reset to it again: the data file is that very file now, so it is copied, not touched in place.
    const linked = readFileSync(savedFile('base'));
    expect((await control('POST', '/reset', { to: 'base' })).status).toBe(200);
    expect(state(server.store)).toBe(atSave);
    expect(statSync(dataFile()).ino).not.toBe(statSync(savedFile('base')).ino);
    expect(readFileSync(savedFile('base')).equals(linked)).toBe(true);
    const third = await restarted();
    try {
      expect(state(third)).toBe(atSave);
    } finally {
      await third.close();
    }
  });

  it('a snapshot saved before, as a fixture document, still resets', async () => {
    copyFileSync(DEMO, savedFile('older'));
    const reset = await control('POST', '/reset', { to: 'older' });
    expect(reset.status).toBe(200);
    expect(reset.json.data.records.threads).toBe(DEMO_THREADS);
    expect(server.store.count('threads')).toBe(DEMO_THREADS);
  });

  it.each([
    ['cut short', (b: Buffer) => b.subarray(0, Math.floor(b.length / 2)), /cannot be loaded: it is damaged/],
    ['a data file, settings and all', () => readFileSync(dataFile()), /it holds records of settings/],
    [
      'in a newer data format',
      (b: Buffer) => Buffer.from(b.toString().replace('"version":2', '"version":3')),
      /data format version 3/,
    ],
  ])('a snapshot file %s is refused (422) and nothing changes', async (_, damage, message) => {
    expect((await control('POST', '/snapshots', { name: 'whole' })).status).toBe(201);
    writeFileSync(savedFile('bad'), damage(readFileSync(savedFile('whole'))));
    const before = state(server.store);
    const journal = readFileSync(`${dataFile()}.journal`);
    const r = await control('POST', '/reset', { to: 'bad' });
    expect(r.status).toBe(422);
    expect(r.json.code).toBe('validation_failed');
    expect(r.json.detail).toMatch(/^Snapshot `bad` cannot be loaded: /);
    expect(r.json.detail).toMatch(message);
    expect(state(server.store)).toBe(before);
    expect(readFileSync(`${dataFile()}.journal`)).toEqual(journal);
  });
});
