// `wcm serve --log-bodies` (issue 47, item 1): the masking of a logged body reads only the 4 KiB the log
// keeps, with no pattern that can backtrack, so one unauthenticated request with a pathological body
// cannot stall the server. The server is the built binary: a stalled event loop in this process would
// stop the test's own timers too.
import path from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe } from '../support/cli.js';
import { tempDir } from '../support/server.js';

const ADMIN = 'wcm_admin_logBodiesTest0123456789abcdef';
const MIB = 1024 * 1024 - 64;
let proc: ResultPromise;
let url: string;
let dir: ReturnType<typeof tempDir>;
beforeAll(async () => {
  dir = tempDir('wcm-log-bodies-');
  ({ proc, url } = await spawnServe(['--data', path.join(dir.dir, 'store.json'), '--log-bodies'], {
    env: { WCM_CONFIG_DIR: path.join(dir.dir, 'config'), WCM_ADMIN_TOKEN: ADMIN },
  }));
});
afterAll(async () => {
  proc.kill('SIGKILL');
  await proc;
  dir.cleanup();
});

const origin = () => new URL(url).origin;

describe('--log-bodies on a pathological body', () => {
  it.each([
    ['repeated `code` (text)', 'text/plain', 'code'.repeat(MIB / 4)],
    ['repeated `code=` pairs with open quotes', 'text/plain', 'code:"x, '.repeat(MIB / 9)],
    ['one long word (e-mail local part)', 'text/plain', 'a'.repeat(MIB)],
    ['repeated `a@`', 'text/plain', 'a@'.repeat(MIB / 2)],
    ['a JSON object of `code` keys', 'application/json', `{${'"code":"code",'.repeat(MIB / 15)}"x":1}`],
    ['JSON nested a million deep', 'application/json', '['.repeat(MIB)],
  ])('%s: answered, /healthz not blocked, and the log keeps at most 4 KiB', async (_, type, body) => {
    const started = performance.now();
    const res = await fetch(`${url}/me`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
      signal: AbortSignal.timeout(5_000),
    });
    expect(res.status).toBeLessThan(500);
    await res.arrayBuffer();
    const health = await fetch(`${origin()}/healthz`, { signal: AbortSignal.timeout(2_000) });
    expect(health.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5_000);

    const log = await fetch(`${origin()}/_emulator/requests?limit=2&all=true`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const entries = ((await log.json()) as { data: { path: string; request_body?: string }[] }).data;
    const entry = entries.find((e) => e.path.endsWith('/me'))!;
    expect(entry.request_body!.length).toBeGreaterThan(0);
    expect(entry.request_body!.length).toBeLessThanOrEqual(4096);
  });
});
