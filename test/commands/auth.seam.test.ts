// `wcm auth …` through the run(options, factory) seam: which token goes where, what is
// saved, and what is refused before any request. Against the real server: auth.server.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import authLogin from '../../commands/auth/login.js';
import authLogout from '../../commands/auth/logout.js';
import authStatus from '../../commands/auth/status.js';
import authToken from '../../commands/auth/token.js';
import { ProfileStore } from '../../src/cli/config.js';
import { CliError, UsageError, apiErrorOf } from '../../src/cli/errors.js';
import { fakeIO } from '../support/cli.js';
import { problem } from '../client/stubs.js';
import { SEAM_WS, record, seamHarness, type SeamHarness } from './harness.js';

const OTHER_WS = '00000000-0000-4000-8000-0000000000b2';
const me = (workspaces: Array<{ id: string; name: string }>) =>
  record({
    user: { id: 'u1', name: 'Ada', email: 'ada@example.com' },
    token: { name: 'laptop', kind: 'personal', abilities: ['content:read'], expires_at: null },
    workspaces: workspaces.map((w) => ({ ...w, role: 'owner' })),
  });
const one = () => me([{ id: SEAM_WS, name: 'Acme' }]);
const two = () =>
  me([
    { id: SEAM_WS, name: 'Acme' },
    { id: OTHER_WS, name: 'Beta' },
  ]);

let h: SeamHarness;
afterEach(() => h.close());
/** A harness for login: the token on standard input, none in the environment, no OS keychain. */
const forLogin = (reply: Parameters<typeof seamHarness>[0], stdin = 'wcm_pat_new\n') =>
  seamHarness(reply, {
    env: { WCM_TOKEN: undefined, WCM_WORKSPACE: undefined, WCM_KEYCHAIN: 'off' },
    io: fakeIO({ stdin }),
  });
const profiles = () => ProfileStore.open(h.env);
const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as Error;

describe('wcm auth login (run seam)', () => {
  it('--with-token: GET /me with that token, then profile `default` holds base URL, token and the only workspace', async () => {
    h = await forLogin(one);
    expect(await h.run(authLogin, { withToken: true })).toBe(0);
    expect(h.request()).toEqual({ method: 'GET', path: '/me', query: {} });
    expect(h.stub.requests[0].headers.authorization).toBe('Bearer wcm_pat_new');
    expect((await profiles()).get('default')).toEqual({
      base_url: h.stub.base,
      token: 'wcm_pat_new',
      workspace: SEAM_WS,
    });
  });

  it('--profile and --workspace (by name) choose where it is saved and which workspace is the default', async () => {
    h = await forLogin(two);
    await h.run(authLogin, { withToken: true }, { profile: 'staging', workspace: 'Beta', json: true });
    expect((await profiles()).get('staging')?.workspace).toBe(OTHER_WS);
    expect(JSON.parse(h.io.out())).toMatchObject({ profile: 'staging', workspace: OTHER_WS, token_storage: 'file' });
    expect(h.io.out()).not.toContain('wcm_pat_new');
  });

  it('two workspaces and no --workspace, piped: saved without a default, and stderr says how to pick one', async () => {
    h = await forLogin(two);
    await h.run(authLogin, { withToken: true });
    expect((await profiles()).get('default')?.workspace).toBeUndefined();
    expect(h.io.err()).toContain('No default workspace saved: the token reaches 2.');
  });

  it('a --workspace the token cannot reach: a usage error listing the reachable ones; nothing saved', async () => {
    h = await forLogin(two);
    const err = await failure(h.run(authLogin, { withToken: true }, { workspace: 'Gamma' }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('`--workspace Gamma` is not a workspace this token can reach; nothing was saved.');
    expect((await profiles()).list()).toEqual({});
  });

  it('a token the server refuses (401): the resolution starts "Nothing was saved."; nothing saved', async () => {
    h = await forLogin(() => ({ status: 401, body: problem(401, 'invalid_token') }));
    const err = await failure(h.run(authLogin, { withToken: true }));
    expect(apiErrorOf(err)?.problem.resolution).toBe('Nothing was saved. stub resolution');
    expect((await profiles()).list()).toEqual({});
  });

  it.each<[string, object, object, string, string?]>([
    [
      'piped without --with-token',
      {},
      {},
      'No token: `wcm auth login` needs `--with-token` (token on standard input) when it cannot prompt.',
    ],
    ['empty standard input', { withToken: true }, {}, '`--with-token`: standard input was empty.', ''],
    [
      'two words on standard input',
      { withToken: true },
      {},
      '`--with-token`: standard input holds more than one word; a token has no spaces or line breaks.',
      'a b\n',
    ],
    [
      '--web with --with-token',
      { web: true, withToken: true },
      {},
      '`--web` and `--with-token` are two ways to log in: pass one.',
    ],
    [
      '--web --timeout 0',
      { web: true, timeout: '0' },
      {},
      '`--timeout` must be a whole number of seconds from 1 to 3600; received `0`.',
    ],
    [
      '--web --scopes with an unknown one',
      { web: true, scopes: 'content:read,everything' },
      {},
      '`--scopes`: unknown `everything`.',
    ],
    [
      'a --base-url not ending in /v1',
      { withToken: true },
      { baseUrl: 'http://127.0.0.1:9/api' },
      '`--base-url`: `http://127.0.0.1:9/api` must end in /v1 (or /api/v1).',
    ],
  ])('%s: a usage error before any request', async (_name, opts, globals, message, stdin) => {
    h = await forLogin(one, stdin);
    const err = await failure(h.run(authLogin, opts, globals));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe(message);
    expect(h.stub.requests).toHaveLength(0);
  });
});

describe('wcm auth status / token / logout (run seam)', () => {
  it('status --json: GET /me with WCM_TOKEN, and where each part of the target came from', async () => {
    h = await seamHarness(one);
    expect(await h.run(authStatus, {}, { json: true })).toBe(0);
    expect(h.request()).toEqual({ method: 'GET', path: '/me', query: {} });
    expect(JSON.parse(h.io.out())).toMatchObject({
      base_url: h.stub.base,
      base_url_source: 'WCM_BASE_URL',
      token_source: 'WCM_TOKEN',
      token_storage: 'environment',
      workspace: SEAM_WS,
      workspace_source: 'WCM_WORKSPACE',
      user: { email: 'ada@example.com' },
    });
    expect(h.io.out()).not.toContain('wcm_pat_stub');
  });

  it('status and token with no token anywhere: exit 4 before any request', async () => {
    h = await seamHarness(one, { env: { WCM_TOKEN: undefined } });
    for (const def of [authStatus, authToken]) {
      const err = await failure(h.run(def));
      expect(err).toBeInstanceOf(CliError);
      expect((err as CliError).exitCode).toBe(4);
      expect(err.message).toBe(`Not logged in: no token for ${h.stub.base}.`);
    }
    expect(h.stub.requests).toHaveLength(0);
  });

  it('token prints the token of the target and sends nothing', async () => {
    h = await seamHarness();
    expect(await h.run(authToken)).toBe(0);
    expect(h.io.out()).toBe('wcm_pat_stub\n');
    expect(h.stub.requests).toHaveLength(0);
  });

  it("logout forgets the current profile's token (base URL and workspace stay) and notes a WCM_TOKEN still set", async () => {
    h = await seamHarness();
    await (await profiles()).set('work', { base_url: h.stub.base, token: 'wcm_pat_saved', workspace: SEAM_WS });
    expect(await h.run(authLogout)).toBe(0);
    expect((await profiles()).get('work')).toEqual({ base_url: h.stub.base, workspace: SEAM_WS });
    expect(h.io.err()).toBe(
      `Removed the token of profile work (${h.stub.base}).\nNote: WCM_TOKEN is set in this environment and still applies to every command.\n`,
    );
    expect(h.stub.requests).toHaveLength(0);
  });

  it('logout --profile of a profile that does not exist: a usage error naming the known ones', async () => {
    h = await seamHarness();
    await (await profiles()).set('work', { base_url: h.stub.base });
    const err = await failure(h.run(authLogout, {}, { profile: 'play' }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('Profile `play` does not exist.');
    expect((err as CliError).hint).toBe('Known profiles: work.');
  });
});
