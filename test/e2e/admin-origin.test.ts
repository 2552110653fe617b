// WCM_ADMIN_TOKEN goes only to a loopback server or to the origin named by WCM_ADMIN_ORIGIN, as a saved
// admin token goes only to its own origin (docs/security.md, "The CLI"): the built binary against
// recording servers, one on loopback by name and one under a name that is not (far.wcm.test, which the
// spawned binary resolves to 127.0.0.1: test/support/far-host.mjs), so nothing leaves loopback.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAR_HOST_ENV, wcm } from '../support/cli.js';
import { tempDir } from '../support/server.js';

const ADMIN = 'wcm_admin_envTokenOnlyForLoopback0000000000';
const ORDER = '0b1e4f8a-5c2d-4e6f-9a7b-3c8d2e1f0a9b';

type Recorder = { server: http.Server; origin: string; seen: Array<{ url: string; authorization?: string }> };
/** A recording server on 127.0.0.1, named `name` in its origin (another host when it is far.wcm.test). */
async function recorder(name: string): Promise<Recorder> {
  const seen: Recorder['seen'] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url!, authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: req.url!.includes('webhook-secret') ? { secret: 'whsec_x' } : { ok: true } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, seen, origin: `http://${name}:${(server.address() as AddressInfo).port}` };
}

let loop: Recorder;
let far: Recorder;
let dir: ReturnType<typeof tempDir>;
beforeAll(async () => {
  dir = tempDir('wcm-admin-origin-');
  loop = await recorder('127.0.0.1');
  far = await recorder('far.wcm.test');
});
afterAll(async () => {
  for (const r of [loop, far]) if (r) await new Promise((done) => r.server.close(done));
  dir.cleanup();
});

const run = (origin: string, args: string[], extra: Record<string, string> = {}) =>
  wcm(args, {
    env: {
      WCM_CONFIG_DIR: dir.dir,
      WCM_BASE_URL: `${origin}/v1`,
      WCM_TOKEN: 'wcm_pat_x',
      WCM_ADMIN_TOKEN: ADMIN,
      ...FAR_HOST_ENV,
      ...extra,
    },
  });
const sentAdmin = (r: Recorder) => r.seen.filter((s) => s.authorization === `Bearer ${ADMIN}`);

describe('WCM_ADMIN_TOKEN and the server it goes to', () => {
  it('local snapshot restore against another host: refused, saying why and how, and nothing sent there', async () => {
    const r = await run(far.origin, ['local', 'snapshot', 'restore', 'before-tests']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(
      `WCM_ADMIN_TOKEN is sent only to a server on this machine (loopback) or to the origin in WCM_ADMIN_ORIGIN; ${far.origin} is neither`,
    );
    expect(r.stderr).toContain(`WCM_ADMIN_ORIGIN=${far.origin}`);
    expect(far.seen).toEqual([]);
  });

  it('payments simulate against another host: the secret is not fetched with it', async () => {
    const r = await run(far.origin, ['payments', 'simulate', ORDER, '--outcome', 'succeeded']);
    expect(r.exitCode).not.toBe(0);
    expect(sentAdmin(far)).toEqual([]);
    expect(far.seen.filter((s) => s.url.startsWith('/_emulator'))).toEqual([]);
  });

  it('logs and local reset: the same', async () => {
    for (const args of [['logs'], ['local', 'reset', '--to', 'seed', '--yes']]) {
      const r = await run(far.origin, args);
      expect(r.exitCode, r.stderr).toBe(4);
    }
    expect(sentAdmin(far)).toEqual([]);
  });

  it('a loopback server gets it; so does the origin WCM_ADMIN_ORIGIN names, and only that one', async () => {
    expect((await run(loop.origin, ['local', 'snapshot', 'restore', 'before-tests'])).exitCode).toBe(0);
    expect(sentAdmin(loop).length).toBe(1);
    const named = await run(far.origin, ['local', 'snapshot', 'restore', 'before-tests'], {
      WCM_ADMIN_ORIGIN: far.origin,
    });
    expect(named.exitCode, named.stderr).toBe(0);
    expect(sentAdmin(far).map((s) => s.url)).toEqual(['/_emulator/reset']);
    const other = await run(far.origin, ['local', 'snapshot', 'restore', 'before-tests'], {
      WCM_ADMIN_ORIGIN: 'http://127.0.0.1:1',
    });
    expect(other.exitCode).toBe(4);
    expect(sentAdmin(far).length).toBe(1);
  });
});
