import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deadPort } from '../client/stubs.js';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';

// Issue 37 item 14: a server that is down is one clean sentence with a hint that does not go in
// circles; `auth status` still shows the saved configuration; a bad `--cursor` names the flag.
let d: ReturnType<typeof tempDir>;
beforeAll(() => void (d = tempDir('wcm-down-')));
afterAll(() => d?.cleanup());

function profileAt(baseUrl: string): Record<string, string> {
  const config = path.join(d.dir, `config-${Math.random().toString(36).slice(2)}`);
  mkdirSync(config);
  writeFileSync(
    path.join(config, 'config.json'),
    JSON.stringify({
      current_profile: 'local',
      profiles: { local: { base_url: baseUrl, token: demo.owner, workspace: demo.ws1 } },
    }),
  );
  return { WCM_CONFIG_DIR: config, WCM_RETRIES: '1' };
}

it('a loopback server that is down: one sentence, and the hint says `wcm serve`', async () => {
  const port = await deadPort();
  const r = await wcm(['lists', 'ls'], { env: profileAt(`http://127.0.0.1:${port}/v1`) });
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toContain(
    `No server is answering at http://127.0.0.1:${port} (tried 2 times): the connection was refused.`,
  );
  expect(r.stderr).toContain('Start the local server with `wcm serve`');
  expect(r.stderr).not.toContain('ECONNREFUSED');
  expect(r.stderr).not.toContain('auth status');
});

it('auth status with the server down shows the saved configuration and says the server is unreachable', async () => {
  const port = await deadPort();
  const env = profileAt(`http://127.0.0.1:${port}/v1`);
  const r = await wcm(['auth', 'status'], { env });
  expect(r.exitCode).toBe(1);
  expect(r.stdout).toMatch(/profile\s+local/);
  expect(r.stdout).toContain(`http://127.0.0.1:${port}/v1 (from profile`);
  expect(r.stdout).toMatch(new RegExp(`workspace\\s+${demo.ws1}`));
  expect(r.stdout).toMatch(/server\s+unreachable/);
  expect(r.stdout).not.toContain(demo.owner);
  expect(r.stderr).toContain(`No server is answering at http://127.0.0.1:${port}`);
  const json = await wcm(['auth', 'status', '--json'], { env });
  expect(json.exitCode).toBe(1);
  expect(JSON.parse(json.stdout)).toMatchObject({
    profile: 'local',
    base_url: `http://127.0.0.1:${port}/v1`,
    workspace: demo.ws1,
    server: 'unreachable',
  });
});

it('a host that does not resolve: a sentence naming it; the hint points at the saved target', async () => {
  const r = await wcm(['lists', 'ls'], { env: { ...profileAt('http://wcm-test.invalid/v1'), WCM_RETRIES: '0' } });
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/The host name wcm-test\.invalid (does not resolve|could not be resolved just now)\./);
  expect(r.stderr).toContain('`wcm auth status` shows the saved target');
});

it('a bad --cursor is a usage error (exit 2) naming --cursor', async () => {
  const env = { WCM_CONFIG_DIR: path.join(d.dir, 'serve-config') };
  const s = await spawnServe(['--data', path.join(d.dir, 'store.json'), '--seed', DEMO], { env });
  try {
    for (const cursor of ['nonsense', 'eyJrIjpbMV19']) {
      const r = await wcm(['threads', 'ls', '--cursor', cursor], { env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`\`--cursor ${cursor}\` is not a cursor of this list`);
      expect(r.stderr).toContain('leave `--cursor` out to start at the first page');
    }
  } finally {
    s.proc.kill('SIGTERM');
    await s.proc;
  }
});

it('wcm mcp with its server down still starts, and warns on stderr that the server is unreachable, at what URL', async () => {
  const port = await deadPort();
  const url = `http://127.0.0.1:${port}/v1`;
  // stdin closes at once: the MCP server starts, answers nothing, and exits 0.
  const r = await wcm(['mcp'], { env: profileAt(url), input: '' });
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines[0]).toMatch(new RegExp(`^wcm mcp: serving \\d+ tools for ${url} on stdio$`));
  expect(lines[1]).toBe(
    `wcm mcp: warning: ${url} is unreachable: No server is answering at http://127.0.0.1:${port} (tried 2 times): the connection was refused.`,
  );
  expect(lines[2]).toContain('tool calls will fail until it answers');
  expect(lines[2]).toContain('Start the local server with `wcm serve`');
});

it('wcm mcp with its server up gives no warning', async () => {
  const serve = await spawnServe(['--data', path.join(d.dir, 'mcp-up.json'), '--seed', DEMO], {
    env: { WCM_CONFIG_DIR: path.join(d.dir, 'mcp-up-config') },
  });
  try {
    const r = await wcm(['mcp'], { env: { ...profileAt(serve.url) }, input: '' });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`for ${serve.url} on stdio`);
    expect(r.stderr).not.toContain('warning');
  } finally {
    serve.proc.kill('SIGTERM');
    await serve.proc;
  }
});
