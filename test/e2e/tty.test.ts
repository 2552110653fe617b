import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';
import { onTerminal } from '../support/terminal.js';

// A real terminal: util-linux `script` runs the binary on a pseudo-terminal, so stdin and stdout
// are TTYs and @inquirer/prompts really prompts. Keys are typed once the prompt is on screen.
const dirs: Array<ReturnType<typeof tempDir>> = [];
const fresh = () => {
  const d = tempDir('wcm-tty-');
  dirs.push(d);
  return d.dir;
};
let serve: Awaited<ReturnType<typeof spawnServe>>;
beforeAll(async () => {
  const d = fresh();
  serve = await spawnServe(['--data', path.join(d, 'store.json'), '--seed', DEMO], {
    env: { WCM_CONFIG_DIR: path.join(d, 'serve-config') },
  });
});
afterAll(async () => {
  serve?.proc.kill('SIGTERM');
  await serve?.proc;
  dirs.forEach((d) => d.cleanup());
});

describe('on a real terminal', () => {
  it('auth login prompts for the token with hidden input, then saves it', async () => {
    const cfg = fresh();
    const t = onTerminal(['auth', 'login', '--base-url', serve.url], { WCM_CONFIG_DIR: cfg });
    await t.when('Token for', `${demo.ciWriter}\r`);
    const r = await t.proc;
    expect(r.exitCode).toBe(0);
    expect(t.screen()).toContain('Logged in to');
    // Typed, but never echoed.
    expect(t.screen()).not.toContain(demo.ciWriter);
    const saved = JSON.parse(readFileSync(path.join(cfg, 'config.json'), 'utf8'));
    expect(saved.profiles.default).toEqual({ base_url: serve.url, token: demo.ciWriter, workspace: demo.ws3 });
  });

  it('lists create with no flags asks the title, offers the template catalog, loops to add items', async () => {
    const env = { WCM_CONFIG_DIR: fresh(), WCM_BASE_URL: serve.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws2 };
    const t = onTerminal(['lists', 'create'], env);
    await t.when('Title', 'Opening hours\r');
    await t.when('Template', '\x1b[B\r'); // arrow down once: the second template of the catalog, `hours`
    await t.when('Add an item?', 'y\r');
    await t.when('Item title', 'Monday\r');
    await t.when('Description', '8 to 6\r');
    await t.when('Add another item?', 'n\r');
    const r = await t.proc;
    expect(r.exitCode).toBe(0);
    expect(t.screen()).toMatch(/template\s+hours/);
    expect(t.screen()).toMatch(/items\s+1/);
    const id = /id\s+([0-9a-f-]{36})/.exec(t.screen())![1];
    const ls = await wcm(['lists', 'ls', '--json', '--limit', '1'], { env });
    expect(JSON.parse(ls.stdout)[0]).toMatchObject({ id, title: 'Opening hours' });
  });

  it.each([
    ['colour by default', {}, [], true],
    ['NO_COLOR', { NO_COLOR: '1' }, [], false],
    ['--no-color', {}, ['--no-color'], false],
  ] as const)('lists ls as a table: %s', async (_name, extraEnv, flags, coloured) => {
    const env = {
      WCM_CONFIG_DIR: fresh(),
      WCM_BASE_URL: serve.url,
      WCM_TOKEN: demo.owner,
      WCM_WORKSPACE: demo.ws1,
      NO_COLOR: undefined,
      ...extraEnv,
    };
    const t = onTerminal([...flags, 'lists', 'ls'], env);
    const r = await t.proc;
    expect(r.exitCode).toBe(0);
    expect(t.screen()).toMatch(/ID\S*\s+\S*TITLE\S*\s+\S*DASHBOARD/);
    expect(/\x1b\[\d+m/.test(t.screen())).toBe(coloured);
  });
});

describe('id pickers on a real terminal', () => {
  it("forms get with the id left out: a searchable list of the workspace's forms; typing filters, Enter shows the form", async () => {
    const env = { WCM_CONFIG_DIR: fresh(), WCM_BASE_URL: serve.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 };
    const t = onTerminal(['forms', 'get'], env);
    await t.when('Choose a form', 'feedback');
    // Typing filters the list: the highlight (❯) moves to the only match, which is last unfiltered.
    await t.when('❯ Café feedback', '\r');
    const r = await t.proc;
    expect(r.exitCode).toBe(0);
    expect(t.screen()).toMatch(/name\s+Café feedback/);
    expect(t.screen()).toMatch(/id\s+7c86d445-fd1e-4f52-ae6e-a7045cb9c2ec/);
  });

  it('articles show with both ids left out: the knowledge list first, then an article of that list', async () => {
    const env = { WCM_CONFIG_DIR: fresh(), WCM_BASE_URL: serve.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 };
    const t = onTerminal(['articles', 'show'], env);
    await t.when('Choose a knowledge list', 'customer');
    await t.when('❯ Customer help', '\r');
    await t.when('Choose an article', '\r');
    const r = await t.proc;
    expect(r.exitCode).toBe(0);
    expect(t.screen()).toMatch(/VERSION\s+PUBLISHED/);
  });
});
