// Issue 18: a profile's token goes only to the origin it was saved for. Spies listen on other
// loopback addresses in this process while the real binary runs with async spawns (a spawnSync
// would block the spies, so a leak could not be seen).
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ROOT } from '../support/server.js';
import { wcm } from '../support/cli.js';

const TOKEN = `wcm_pat_${'S'.repeat(40)}`;
const OTHER = `wcm_pat_${'E'.repeat(40)}`;
const WS = '11111111-1111-4111-8111-111111111111';

interface Seen {
  url: string;
  authorization?: string;
}

/** A server on `host` recording every request; `answer` decides the response. */
async function spy(host: string, answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return { seen, origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const page = (res: http.ServerResponse, data: unknown[], next: string | null) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ data, meta: { request_id: 'req_1', next_cursor: next } }));
};

let home: Awaited<ReturnType<typeof spy>>;
let stranger: Awaited<ReturnType<typeof spy>>;
let redirector: Awaited<ReturnType<typeof spy>>;
let dir: string;

/** A config file in today's format: one profile whose token was saved for `home`. */
function config(profiles: Record<string, { base_url: string; token?: string; workspace?: string }>) {
  dir = mkdtempSync(path.join(tmpdir(), 'wcm-bind-'));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ current_profile: 'default', profiles }), {
    mode: 0o600,
  });
}
const run = (args: string[], env: Record<string, string | undefined> = {}) =>
  wcm(args, {
    env: { WCM_CONFIG_DIR: dir, WCM_TOKEN: undefined, WCM_BASE_URL: undefined, WCM_PROFILE: undefined, ...env },
  });

beforeAll(async () => {
  home = await spy('127.0.0.1', (req, res) => {
    const u = new URL(req.url!, 'http://x');
    // Page 1 hands back a cursor that looks like another host's URL: the cursor is opaque, so the
    // second request must still go to this origin, with the cursor as a query parameter.
    if (u.pathname.endsWith('/lists'))
      return page(
        res,
        [{ id: u.searchParams.get('cursor') ? 'b' : 'a' }],
        u.searchParams.get('cursor') ? null : `${stranger.origin}/v1/workspaces/${WS}/lists?cursor=x`,
      );
    page(res, [], null);
  });
  stranger = await spy('127.0.0.2', (_req, res) => page(res, [], null));
  redirector = await spy('127.0.0.1', (req, res) => {
    res.writeHead(307, { location: `${stranger.origin}${req.url}` });
    res.end();
  });
});
afterAll(async () => {
  await Promise.all([home.close(), stranger.close(), redirector.close()]);
});
beforeEach(() => {
  home.seen.length = 0;
  stranger.seen.length = 0;
  redirector.seen.length = 0;
  config({ default: { base_url: `${home.origin}/v1`, token: TOKEN, workspace: WS } });
});

describe('a profile token is sent only to its own origin', () => {
  const steps = path.join(ROOT, 'fixtures/ci-seed.steps.json');
  const elsewhere = () => `${stranger.origin}/v1`;
  it.each([
    ['lists ls --base-url', () => ['lists', 'ls', '--base-url', elsewhere()], {}],
    ['lists ls via WCM_BASE_URL', () => ['lists', 'ls'], { WCM_BASE_URL: 'stranger' }],
    ['lists ls --all', () => ['lists', 'ls', '--all', '--base-url', elsewhere()], {}],
    ['api', () => ['api', '/workspaces/{workspace}/lists', '--base-url', elsewhere()], {}],
    ['api of a public path', () => ['api', '/openapi.json', '--base-url', elsewhere()], {}],
    ['seed', () => ['seed', steps, '--base-url', elsewhere()], {}],
    ['auth status', () => ['auth', 'status', '--base-url', elsewhere()], {}],
    ['auth token', () => ['auth', 'token', '--base-url', elsewhere()], {}],
  ] as const)('%s to another host: exit 4 before anything is sent', async (_name, args, env) => {
    const r = await run(args(), 'WCM_BASE_URL' in env ? { WCM_BASE_URL: elsewhere() } : {});
    expect(r.exitCode).toBe(4);
    expect(stranger.seen).toEqual([]);
    expect(r.stderr).toContain(`No token saved for ${stranger.origin}`);
    expect(r.stderr).toContain(`wcm auth login --base-url ${elsewhere()}`);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });

  it('names another profile that holds a token for that host', async () => {
    config({
      default: { base_url: `${home.origin}/v1`, token: TOKEN },
      staging: { base_url: `${stranger.origin}/v1`, token: OTHER },
    });
    const r = await run(['lists', 'ls', '--workspace', WS, '--base-url', elsewhere()]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('--profile staging');
    expect(stranger.seen).toEqual([]);
  });

  it('WCM_TOKEN goes where the user points it', async () => {
    // The profile's workspace belongs to its own origin too (issue 48): named here.
    const r = await run(['lists', 'ls', '--workspace', WS, '--base-url', elsewhere()], { WCM_TOKEN: OTHER });
    expect(r.exitCode).toBe(0);
    expect(stranger.seen.map((s) => s.authorization)).toEqual([`Bearer ${OTHER}`]);
  });

  it('/v1 and /api/v1 of one origin are one host', async () => {
    const r = await run(['lists', 'ls', '--json', '--base-url', `${home.origin}/api/v1`]);
    expect(r.exitCode).toBe(0);
    expect(home.seen.map((s) => [new URL(s.url, 'http://x').pathname, s.authorization])).toEqual([
      [`/api/v1/workspaces/${WS}/lists`, `Bearer ${TOKEN}`],
    ]);
  });

  it('--all paging stays on the original origin whatever next_cursor says', async () => {
    const r = await run(['lists', 'ls', '--all', '--json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).map((l: { id: string }) => l.id)).toEqual(['a', 'b']);
    expect(home.seen).toHaveLength(2);
    expect(new URL(home.seen[1].url, 'http://x').searchParams.get('cursor')).toContain(stranger.origin);
    expect(stranger.seen).toEqual([]);
  });

  it('api --paginate stays on the original origin', async () => {
    const r = await run(['api', '/workspaces/{workspace}/lists', '--paginate']);
    expect(r.exitCode).toBe(0);
    expect(home.seen).toHaveLength(2);
    expect(stranger.seen).toEqual([]);
  });

  it('a redirect is not followed: the token never reaches the redirect target', async () => {
    config({ default: { base_url: `${redirector.origin}/v1`, token: TOKEN, workspace: WS } });
    const r = await run(['lists', 'ls']);
    expect(r.exitCode).not.toBe(0);
    expect(redirector.seen).toHaveLength(1);
    expect(stranger.seen).toEqual([]);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    // The error says it was a redirect, where to, and that it was not followed.
    expect(r.stderr).toContain(`The server answered 307, a redirect to ${stranger.origin}/v1/workspaces/${WS}/lists`);
    expect(r.stderr).toContain('wcm does not follow redirects');
  });

  it('--debug redacts the token', async () => {
    const r = await run(['lists', 'ls', '--json', '--debug']);
    expect(r.exitCode).toBe(0);
    expect(home.seen[0].authorization).toBe(`Bearer ${TOKEN}`);
    expect(r.stderr).not.toContain(TOKEN);
  });

  it('a config file from before host binding keeps working (its token is bound to its base URL)', async () => {
    const r = await run(['lists', 'ls', '--json']);
    expect(r.exitCode).toBe(0);
    expect(home.seen.map((s) => s.authorization)).toEqual([`Bearer ${TOKEN}`]);
  });
});
