import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, readLock, StoreLockedError } from '../../../src/store/json/lock.js';
import { Store } from '../../../src/store/json/store.js';
import { tempDir } from '../../support/server.js';

let dir: string;
let cleanup: () => void;
let file: string;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  file = path.join(dir, 'store.json');
});
afterEach(() => cleanup());

const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;
const writeLock = (info: object | string) =>
  writeFileSync(`${file}.lock`, typeof info === 'string' ? info : JSON.stringify(info));

describe('the data-file lock', () => {
  it("a second open of the same file is refused, naming the file and the holder's pid", async () => {
    const a = await Store.open(file);
    const err = await Store.open(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain(`pid ${process.pid}`);
    expect((err as Error).message).toContain('--data');
    await a.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
    const b = await Store.open(file);
    await b.close();
  });

  it.each([
    [
      'a lock whose process is gone',
      () => ({ pid: deadPid(), host: os.hostname(), started_at: new Date().toISOString() }),
    ],
    [
      'a lock whose pid now belongs to a process started after it was written',
      () => ({ pid: process.pid, host: os.hostname(), started_at: '2000-01-01T00:00:00.000Z' }),
    ],
  ])('%s is stale and taken over', async (_name, info) => {
    writeLock(info());
    expect(await readLock(file)).toBeNull();
    const release = await acquireLock(file);
    expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8')).pid).toBe(process.pid);
    await release();
  });

  it.runIf(process.platform === 'linux')(
    'a lock whose process is a zombie (exited, not yet reaped by its parent) is stale and taken over',
    async () => {
      // The child exits after 0.3 s, and its parent (sh, replaced by `sleep 30` through exec) never reaps it. It must
      // outlive the exec: a child that exits before it (`sleep 0` on a loaded machine) is reaped by sh itself.
      const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        const pid = Number(
          await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString()))),
        );
        const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0];
        for (let i = 0; i < 500 && state() !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
        expect(state()).toBe('Z');
        // The pid still exists (signal 0 reaches a zombie), but it holds nothing.
        expect(() => process.kill(pid, 0)).not.toThrow();
        writeLock({ pid, host: os.hostname(), started_at: new Date().toISOString() });
        expect(await readLock(file)).toBeNull();
        const release = await acquireLock(file);
        expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8')).pid).toBe(process.pid);
        await release();
      } finally {
        parent.kill('SIGKILL');
      }
    },
  );

  it('starts racing for the same stale lock: exactly one wins, the others are told who holds it (30 rounds)', async () => {
    // The race is narrow: one round rarely hits it on an idle machine, many rounds do.
    for (let round = 0; round < 30; round++) {
      writeLock({ pid: deadPid(), host: os.hostname(), started_at: new Date().toISOString() });
      const results = await Promise.allSettled(Array.from({ length: 12 }, () => acquireLock(file)));
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won, `round ${round}`).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(StoreLockedError);
      await (won[0] as PromiseFulfilledResult<() => Promise<void>>).value();
      expect(existsSync(`${file}.lock`)).toBe(false);
    }
  });

  it('release leaves a lock that is not ours alone', async () => {
    const release = await acquireLock(file);
    writeLock({ pid: 1, host: 'elsewhere', started_at: new Date().toISOString() });
    await release();
    expect(existsSync(`${file}.lock`)).toBe(true);
  });

  it('a live holder blocks', async () => {
    writeLock({ pid: process.pid, host: os.hostname(), started_at: new Date().toISOString() });
    await expect(acquireLock(file)).rejects.toBeInstanceOf(StoreLockedError);
  });

  it('a lock torn by a crash (not JSON) blocks only while it is fresh', async () => {
    writeLock('{"pid": 12');
    await expect(acquireLock(file)).rejects.toBeInstanceOf(StoreLockedError);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    const release = await acquireLock(file);
    await release();
  });

  it('a lock from another host is respected (its pid means nothing here)', async () => {
    writeLock({ pid: deadPid(), host: 'some-other-host.example', started_at: new Date().toISOString() });
    await expect(acquireLock(file)).rejects.toBeInstanceOf(StoreLockedError);
  });
});
