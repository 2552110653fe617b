// `wcm oauth apps …` and `wcm oauth grants …` against the real server (in-process CLI, real socket).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fakeIO, runInProcess } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let cfg: ReturnType<typeof tempDir>;
let env: Record<string, string>;
// A fresh server (and config directory) for every test: tests here write, and none may see another's writes.
beforeEach(async () => {
  server = await onPort();
  cfg = tempDir('wcm-oauth-cmd-');
  env = { WCM_CONFIG_DIR: cfg.dir, WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 };
});
afterEach(async () => {
  await server.close();
  cfg.cleanup();
});
const run = (args: string[], io?: ReturnType<typeof fakeIO>) => runInProcess(args, { io, env });
const tsv = (out: string) =>
  out
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => l.split('\t'));

it('apps create prints the secret once (and says so), ls lists it without, rm deletes it', async () => {
  const created = await run([
    'oauth',
    'apps',
    'create',
    '--name',
    'Nightly sync',
    '--redirect-uri',
    'https://sync.example/cb',
    '--redirect-uri',
    'http://127.0.0.1/cb',
    '--confidential',
  ]);
  expect(created.code, created.stderr).toBe(0);
  const fields = Object.fromEntries(tsv(created.stdout));
  expect(fields).toMatchObject({
    name: 'Nightly sync',
    type: 'confidential',
    redirect_uris: 'https://sync.example/cb http://127.0.0.1/cb',
  });
  expect(fields.client_secret).toMatch(/^wcm_secret_/);
  expect(created.stderr).toContain('shown only this once');
  const id = fields.client_id;

  const ls = await run(['oauth', 'apps', 'ls']);
  const rows = tsv(ls.stdout);
  expect(rows.map((r) => r[0])).toEqual([id, demo.oauthAppAcme]); // newest first, this workspace only
  expect(ls.stdout).not.toContain(fields.client_secret);

  const rm = await run(['oauth', 'apps', 'rm', id, '--yes']);
  expect(rm.code, rm.stderr).toBe(0);
  expect(server.store.get('oauth_apps', id)).toBeUndefined();
});

it('bad input: a clear error, the right exit code, nothing created', async () => {
  const before = [...server.store.values('oauth_apps')].length;
  const noName = await run(['oauth', 'apps', 'create', '--redirect-uri', 'https://a.example/cb']);
  expect([noName.code, noName.stderr]).toEqual([2, expect.stringContaining('`--name`')]);
  const noUri = await run(['oauth', 'apps', 'create', '--name', 'x']);
  expect([noUri.code, noUri.stderr]).toEqual([2, expect.stringContaining('`--redirect-uri`')]);
  const js = await run(['oauth', 'apps', 'create', '--name', 'x', '--redirect-uri', 'javascript:alert(1)']);
  expect(js.code).toBe(3);
  expect(js.stderr).toContain('redirect_uris.0');
  expect([...server.store.values('oauth_apps')].length).toBe(before);
});

it('rm and revoke need --yes when there is no terminal (exit 2, nothing deleted); on a terminal they ask', async () => {
  const piped = await run(['oauth', 'grants', 'revoke', demo.grantAda]);
  expect(piped.code).toBe(2);
  expect(piped.stderr).toContain('--yes');
  expect(server.store.get('oauth_grants', demo.grantAda)!.revoked_at).toBeNull();
  const asked: string[] = [];
  const no = await run(
    ['oauth', 'apps', 'rm', demo.oauthAppAcme],
    fakeIO({ tty: true, prompter: { confirm: async (o) => (asked.push(o.message), false) } }),
  );
  expect(no.code).toBe(1);
  expect(asked[0]).toContain(demo.oauthAppAcme);
  expect(server.store.get('oauth_apps', demo.oauthAppAcme)).toBeDefined();
});

it("grants ls shows the user's live grants; revoke --yes ends one; a second revoke is exit 5", async () => {
  const ls = await run(['oauth', 'grants', 'ls']);
  const ids = tsv(ls.stdout).map((r) => r[0]);
  expect(ids).toContain(demo.grantAda);
  expect(ids).not.toContain(demo.grantBo); // Bo's
  expect(ids).not.toContain('grant_demoAdaRevokedGrant001'); // revoked
  const revoked = await run(['oauth', 'grants', 'revoke', demo.grantAda, '--yes']);
  expect(revoked.code, revoked.stderr).toBe(0);
  expect(server.store.get('oauth_grants', demo.grantAda)!.revoked_at).not.toBeNull();
  const again = await run(['oauth', 'grants', 'revoke', demo.grantAda, '--yes']);
  expect(again.code).toBe(5);
  expect(again.stderr).toContain('OAuth grant not found');
});
