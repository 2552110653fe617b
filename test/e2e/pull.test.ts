/*
 * `wcm pull --resume` after the process was killed (SIGKILL) mid-pull: the built binary against a
 * real server behind a slow proxy; the resumed copy is the copy an uninterrupted pull makes.
 */
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, wcm } from '../support/cli.js';
import { proxy } from '../support/pull.js';
import { DEMO, demo, onPort, tempDir } from '../support/server.js';

/** The demo workspace's threads (fixtures/demo.json; counted, so a demo record added keeps this true). */
const WS1_THREADS = (JSON.parse(readFileSync(DEMO, 'utf8')).threads as Array<{ workspace_id: string }>).filter(
  (t) => t.workspace_id === demo.ws1,
).length;

const records = (file: string) => {
  const { tokens: _t, ...rest } = JSON.parse(readFileSync(file, 'utf8'));
  return rest;
};

describe('wcm pull --resume', () => {
  let source: Awaited<ReturnType<typeof onPort>>;
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    source = await onPort();
    tmp = tempDir('wcm-pull-e2e-');
  });
  afterAll(async () => {
    await source?.close();
    tmp?.cleanup();
  });

  it('continues a pull killed mid-threads and ends with the same copy as an uninterrupted one', async () => {
    const slow = await proxy(source.url, { delayMs: 25 });
    const env = {
      WCM_BASE_URL: slow.url,
      WCM_TOKEN: demo.owner,
      WCM_WORKSPACE: demo.ws1,
      WCM_CONFIG_DIR: path.join(tmp.dir, 'cfg'),
    };
    const file = path.join(tmp.dir, 'acme.json');
    const state = `${file}.partial.state.json`;
    try {
      const args = ['pull', '--output', file, '--concurrency', '1'];
      const child = execa('node', [BIN, ...args], { reject: false, env: { NO_COLOR: '1', CI: 'true', ...env } });
      let exited = false;
      const done = child.then((r) => ((exited = true), r));
      // Killed once some threads are written, so the resume has a cursor in the middle of a view.
      const threadsWritten = () => {
        try {
          return (JSON.parse(readFileSync(state, 'utf8')).counts.threads ?? 0) as number;
        } catch {
          return 0;
        }
      };
      while (!exited && threadsWritten() < 3) await new Promise((r) => setTimeout(r, 10));
      expect(exited).toBe(false);
      child.kill('SIGKILL');
      const killed = await done;
      expect(killed.signal).toBe('SIGKILL');
      expect(existsSync(file)).toBe(false);
      expect(existsSync(`${file}.partial`)).toBe(true);
      const before = JSON.parse(readFileSync(state, 'utf8'));
      expect(before.counts.threads).toBeGreaterThan(0);
      expect(before.counts.threads).toBeLessThan(WS1_THREADS);

      // Other options than the interrupted pull's: refused, the partial file kept.
      const other = await wcm([...args, '--resume', '--only', 'threads'], { env });
      expect(other.exitCode).toBe(2);
      expect(other.stderr).toContain('other options');

      const resumed = await wcm([...args, '--resume', '--json'], { env, timeout: 30_000 });
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      const summary = JSON.parse(resumed.stdout);
      expect(summary.resumed).toBe(true);
      expect(summary.made.token).toBe(before.token);
      expect(existsSync(`${file}.partial`)).toBe(false);
      expect(existsSync(state)).toBe(false);

      const reference = path.join(tmp.dir, 'reference.json');
      const straight = await wcm(['pull', '--output', reference], {
        env: { ...env, WCM_BASE_URL: source.url },
      });
      expect(straight.exitCode, straight.stderr).toBe(0);
      const got = records(file);
      expect(got.threads).toHaveLength(WS1_THREADS);
      expect(new Set(got.threads.map((t: { id: string }) => t.id)).size).toBe(WS1_THREADS);
      expect(got).toEqual(records(reference));
      expect(JSON.parse(readFileSync(file, 'utf8')).tokens[0].token).toBe(before.token);
    } finally {
      await slow.close();
    }
  }, 60_000);
});
