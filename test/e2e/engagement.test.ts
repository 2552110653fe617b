import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { b, eng, t, v, writeEngagementFixture } from '../support/engagement.js';
import { tempDir } from '../support/server.js';

// The built binary against `wcm serve` in another process: what a support person's shell does.
let dir: ReturnType<typeof tempDir>;
let serve: { proc: ResultPromise; url: string };
let env: Record<string, string>;
beforeAll(async () => {
  dir = tempDir();
  const fixture = writeEngagementFixture(dir.dir);
  serve = await spawnServe(['--data', `${dir.dir}/store.json`, '--seed', fixture], {
    env: { WCM_CONFIG_DIR: dir.dir },
  });
  env = { WCM_BASE_URL: serve.url, WCM_TOKEN: eng.token, WCM_WORKSPACE: eng.wsA, WCM_CONFIG_DIR: dir.dir };
});
afterAll(async () => {
  serve.proc.kill('SIGTERM');
  await serve.proc;
  dir.cleanup();
});

const firstColumn = (out: string) =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[0]);

describe('engagement commands through the binary', () => {
  it.each([
    [['threads', 'ls'], [5, 2, 7, 1, 6].map(t)],
    [['threads', 'ls', '--view', 'unread', '--channel', 'whatsapp'], [5, 1].map(t)],
    [['threads', 'ls', '--search', 'orchid'], [t(5)]],
    [['bookings', 'ls', '--status', 'confirmed', '--from', '2025-11-03'], [4, 5].map(b)],
    [['voice', 'ls', '--kind', 'voice_message'], [v(2)]],
  ])('wcm %j prints the expected rows, piped', async (args, ids) => {
    const r = await wcm(args, { env });
    expect(r.exitCode).toBe(0);
    expect(firstColumn(r.stdout)).toEqual(ids);
  });

  it('wcm threads ls --all --json is one JSON array', async () => {
    const r = await wcm(['threads', 'ls', '--all', '--limit', '2', '--json'], { env });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).map((x: { id: string }) => x.id)).toEqual([5, 2, 7, 1, 6].map(t));
  });

  it('wcm threads show prints the conversation, piped', async () => {
    const r = await wcm(['threads', 'show', t(7)], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('subject\tBroken kettle spout\n');
    expect(r.stdout).toContain('\n2025-03-01T11:00:00.000Z\tinbound\temail\nMessage ');
  });

  it.each([
    [['threads', 'ls', '--view', 'later'], 2, /Allowed choices are inbox, unread, starred, closed/],
    [['bookings', 'ls', '--to', 'next week'], 2, /`--to` must be an ISO 8601 date or date-time/],
    [['threads', 'show', t(8)], 5, /thread_not_found/],
  ])('wcm %j exits %i', async (args, code, message) => {
    const r = await wcm(args, { env });
    expect(r.exitCode).toBe(code);
    expect(r.stderr).toMatch(message);
  });
});
