import { existsSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeIO } from '../support/cli.js';
import { demo } from '../support/server.js';
import { clientHarness, type ClientHarness } from './harness.js';

let h: ClientHarness;
beforeEach(async () => {
  h = await clientHarness();
});
afterEach(async () => {
  await h.close();
});

const login = (token: string, args: string[] = [], env: Record<string, string> = {}) =>
  h.run(['auth', 'login', '--with-token', '--base-url', h.base, ...args], { io: fakeIO({ stdin: `${token}\n` }), env });

describe('wcm auth login', () => {
  it('--with-token checks the token, saves profile `default` (mode 0600) and lists the workspaces it reaches', async () => {
    const r = await login(demo.owner);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Logged in to');
    expect(r.stdout).toContain('Ada Lindqvist');
    expect(r.stdout).toContain(demo.ws1);
    expect(r.stdout).toContain(demo.ws2);
    expect(r.stdout + r.stderr).not.toContain(demo.owner);
    // Two workspaces, no terminal: nothing chosen, and it says how to choose.
    expect(r.stderr).toContain('--workspace ID');
    const p = (await h.profiles()).get('default');
    expect(p).toEqual({ base_url: h.base, token: demo.owner });
    expect((await h.profiles()).current()).toBe('default');
    expect(h.mode()).toBe(0o600);
  });

  it('--workspace picks a workspace the token reaches', async () => {
    const r = await login(demo.owner, ['--workspace', demo.ws2, '--profile', 'acme']);
    expect(r.code).toBe(0);
    expect((await h.profiles()).get('acme')).toEqual({ base_url: h.base, token: demo.owner, workspace: demo.ws2 });
  });

  it('--workspace that the token cannot reach: exit 2, nothing saved', async () => {
    const r = await login(demo.owner, ['--workspace', demo.ws3]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`\`--workspace ${demo.ws3}\` is not a workspace this token can reach`);
    expect(r.stderr).toContain(demo.ws1);
    expect(existsSync(h.configFile) ? (await h.profiles()).list() : {}).toEqual({});
  });

  it('the only reachable workspace becomes the default', async () => {
    const r = await login(demo.ciWriter);
    expect(r.code).toBe(0);
    expect((await h.profiles()).get('default')?.workspace).toBe(demo.ws3);
  });

  it.each([
    ['unknown', 'wcm_pat_doesNotExist0123456789abcdefghijklmnop'],
    ['expired', demo.expired],
    ['revoked', demo.revoked],
  ])('a %s token: exit 4, nothing saved, the token not echoed', async (_kind, token) => {
    const r = await login(token);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('invalid_token');
    expect(r.stderr).toContain('Nothing was saved');
    expect(r.stderr + r.stdout).not.toContain(token);
    expect(existsSync(h.configFile) ? (await h.profiles()).list() : {}).toEqual({});
  });

  it('piped without --with-token: a usage error at once, no prompt', async () => {
    const r = await h.run(['auth', 'login', '--base-url', h.base]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--with-token');
  });

  it('--with-token with empty stdin: exit 2', async () => {
    const r = await h.run(['auth', 'login', '--with-token', '--base-url', h.base], { io: fakeIO({ stdin: '  \n' }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('standard input was empty');
  });

  it('on a terminal: asks for the token with hidden input and the workspace as a choice', async () => {
    const asked: string[] = [];
    const io = fakeIO({
      tty: true,
      prompter: {
        password: async (o) => (asked.push(`password:${o.message}`), demo.owner),
        select: async (o) => {
          asked.push(`select:${o.message}:${o.choices.map((c) => c.value).join(',')}`);
          return demo.ws2 as never;
        },
      },
    });
    const r = await h.run(['auth', 'login', '--base-url', h.base, '--profile', 'tty'], { io });
    expect(r.code).toBe(0);
    expect(asked).toEqual([`password:Token for ${h.base}`, `select:Default workspace:${demo.ws1},${demo.ws2}`]);
    expect((await h.profiles()).get('tty')).toEqual({ base_url: h.base, token: demo.owner, workspace: demo.ws2 });
    expect(io.out() + io.err()).not.toContain(demo.owner);
  });

  it('--json prints what was saved, without the token', async () => {
    const r = await login(demo.ciWriter, ['--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      profile: 'default',
      base_url: h.base,
      workspace: demo.ws3,
      user: { id: 'usr_dee' },
      abilities: ['content:read', 'content:write'],
    });
    expect(r.stdout).not.toContain(demo.ciWriter);
  });
});

describe('wcm auth status / token / logout', () => {
  beforeEach(async () => {
    expect((await login(demo.owner, ['--workspace', demo.ws1])).code).toBe(0);
  });

  it('status shows profile, base URL, user, abilities, workspaces and the token source, never the token', async () => {
    const r = await h.run(['auth', 'status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('profile\tdefault');
    expect(r.stdout).toContain(`base url\t${h.base} (from profile default)`);
    expect(r.stdout).toContain('Ada Lindqvist <ada@acme-coffee.example>');
    expect(r.stdout).toContain('(from profile default)');
    expect(r.stdout).toContain('content:write');
    expect(r.stdout).toContain(`workspace\t${demo.ws1} (from profile default)`);
    expect(r.stdout).toContain('Blue Fern Studio');
    expect(r.stdout + r.stderr).not.toContain(demo.owner);
  });

  it('status --json says the token came from WCM_TOKEN when it did', async () => {
    const r = await h.run(['auth', 'status', '--json'], { env: { WCM_TOKEN: demo.ciWriter } });
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({
      profile: 'default',
      base_url: h.base,
      token_source: 'WCM_TOKEN',
      user: { id: 'usr_dee' },
      workspace: demo.ws1,
    });
    expect(s.workspaces.map((w: { id: string }) => w.id)).toEqual([demo.ws3]);
    expect(r.stdout).not.toContain(demo.ciWriter);
  });

  it('status with a token the server refuses: exit 4', async () => {
    const r = await h.run(['auth', 'status'], { env: { WCM_TOKEN: demo.revoked } });
    expect(r.code).toBe(4);
    expect(r.stderr).not.toContain(demo.revoked);
  });

  it('token prints the token and nothing else', async () => {
    const r = await h.run(['auth', 'token']);
    expect(r).toMatchObject({ code: 0, stdout: `${demo.owner}\n`, stderr: '' });
  });

  it('logout removes the token; then token and status exit 4', async () => {
    const r = await h.run(['auth', 'logout']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Removed the token of profile default');
    expect((await h.profiles()).get('default')).toEqual({ base_url: h.base, workspace: demo.ws1 });
    expect((await h.run(['auth', 'token'])).code).toBe(4);
    const status = await h.run(['auth', 'status']);
    expect(status.code).toBe(4);
    expect(status.stderr).toContain('Not logged in');
  });

  it('--debug lines redact the token', async () => {
    const r = await h.run(['--debug', 'auth', 'status']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('[debug] > GET');
    expect(r.stderr).toContain('authorization: Bearer [REDACTED]');
    expect(r.stderr + r.stdout).not.toContain(demo.owner);
  });
});

describe('a token never appears in an error', () => {
  it('a token with a non-ASCII character: exit 2, the source named, the token not shown', async () => {
    const bad = 'wcm_pat_secr\u00e9tValue0123456789abcdefghijkl';
    const r = await h.run(['lists', 'ls'], { env: { WCM_BASE_URL: h.base, WCM_TOKEN: bad, WCM_WORKSPACE: demo.ws1 } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(from WCM_TOKEN)');
    expect(r.stderr).not.toContain('secr');
  });

  it('a broken config file: exit 1, none of its text quoted', async () => {
    writeFileSync(h.configFile, `{"profiles":{"default":{"base_url":"${h.base}","token":"${demo.owner}",}}}`);
    for (const args of [
      ['lists', 'ls'],
      ['profile', 'ls'],
      ['auth', 'token'],
    ]) {
      const r = await h.run(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('cannot be read (SyntaxError)');
      expect(r.stderr + r.stdout).not.toContain(demo.owner);
    }
  });
});

describe('wcm profile ls / use', () => {
  beforeEach(async () => {
    expect((await login(demo.owner, ['--workspace', demo.ws1])).code).toBe(0);
    expect((await login(demo.ciWriter, ['--profile', 'ci'])).code).toBe(0);
  });

  it('ls marks the current profile and never prints tokens (piped)', async () => {
    const r = await h.run(['profile', 'ls']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`\tci\t${h.base}\t${demo.ws3}\tyes\n*\tdefault\t${h.base}\t${demo.ws1}\tyes\n`);
  });

  it('ls on a terminal: a table with a header, still no token', async () => {
    const io = fakeIO({ tty: true });
    const r = await h.run(['profile', 'ls'], { io });
    expect(r.stdout).toMatch(/NAME\s+BASE URL\s+WORKSPACE\s+LOGGED IN/);
    expect(r.stdout).toMatch(/\*\s+default/);
    expect(r.stdout).not.toContain(demo.owner);
    expect(r.stdout).not.toContain(demo.ciWriter);
  });

  it('use switches the current profile; ls --json shows it', async () => {
    expect((await h.run(['profile', 'use', 'ci'])).code).toBe(0);
    const r = await h.run(['profile', 'ls', '--json']);
    expect(JSON.parse(r.stdout)).toEqual([
      { name: 'ci', base_url: h.base, workspace: demo.ws3, logged_in: true, current: true },
      { name: 'default', base_url: h.base, workspace: demo.ws1, logged_in: true, current: false },
    ]);
    const t = await h.run(['auth', 'token']);
    expect(t.stdout).toBe(`${demo.ciWriter}\n`);
  });

  it('use of an unknown profile: exit 2 naming the known ones', async () => {
    const r = await h.run(['profile', 'use', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Profile `nope` does not exist');
    expect(r.stderr).toContain('ci, default');
  });
});
