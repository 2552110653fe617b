import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Prompter } from '../../src/cli/io.js';
import { fakeIO } from '../support/cli.js';
import { demo } from '../support/server.js';
import { clientHarness, type ClientHarness } from './harness.js';

let h: ClientHarness;
let env: Record<string, string>;
beforeEach(async () => {
  h = await clientHarness();
  env = { WCM_BASE_URL: h.base, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 };
});
afterEach(async () => {
  await h.close();
});

async function allListings(): Promise<Array<{ id: string; title: string; dashboard_url: string }>> {
  const r = await h.run(['lists', 'ls', '--all', '--json'], { env });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

describe('wcm lists create', () => {
  it('with flags, piped: key<TAB>value lines of the new listing', async () => {
    const r = await h.run(
      ['lists', 'create', '--title', 'FAQ', '--template', 'faq', '--item', 'Hours?: 8 to 6', '--item', 'Parking?'],
      { env },
    );
    expect(r.code).toBe(0);
    const fields = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')),
    );
    expect(fields).toMatchObject({ title: 'FAQ', template: 'faq', items: '2' });
    expect(fields.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(fields.dashboard).toContain(fields.id);
    expect((await allListings())[0]).toMatchObject({ id: fields.id, title: 'FAQ' });
  });

  it('--json prints the created record; --items-file adds items', async () => {
    const file = path.join(h.configDir, 'items.json');
    writeFileSync(file, JSON.stringify([{ title: 'Espresso', description: '2.50' }]));
    const r = await h.run(
      ['lists', 'create', '--json', '--title', 'Menu', '--template', 'menu', '--item', 'Tea', '--items-file', file],
      { env },
    );
    expect(r.code).toBe(0);
    const l = JSON.parse(r.stdout);
    expect(l).toMatchObject({
      title: 'Menu',
      template_slug: 'menu',
      items: [{ title: 'Tea' }, { title: 'Espresso', description: '2.50' }],
      button_id: null,
    });
  });

  it.each([
    [[], 'Missing --title and --template'],
    [['--title', 'T'], 'Missing --template'],
    [['--template', 'faq'], 'Missing --title'],
  ])('piped with %j: exit 2 before any request', async (args, message) => {
    const before = (await allListings()).length;
    const r = await h.run(['--debug', 'lists', 'create', ...args], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain('[debug] > POST');
    expect((await allListings()).length).toBe(before);
  });

  it('a 422 prints each field error and exits 3', async () => {
    const r = await h.run(
      ['lists', 'create', '--title', 'x'.repeat(256), '--template', 'faq', '--item', 'y'.repeat(256)],
      { env },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Validation failed (422 validation_failed)');
    expect(r.stderr).toMatch(/• title: .*255/);
    expect(r.stderr).toMatch(/• items\.0\.title: .*255/);
    expect(r.stderr).toContain('→ Fix the fields');
    expect(r.stderr).toMatch(/request id: req_/);
  });

  it('--json errors: the problem object on stderr, nothing on stdout', async () => {
    const r = await h.run(['lists', 'create', '--json', '--title', 'T', '--template', 'nope'], { env });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    const p = JSON.parse(r.stderr);
    expect(p).toMatchObject({
      status: 422,
      code: 'validation_failed',
      errors: { template_slug: [expect.stringContaining('nope')] },
    });
    expect(p.request_id).toMatch(/^req_/);
  });

  it('on a terminal with no flags: asks the title, offers the template catalog, loops to add items', async () => {
    const asked: string[] = [];
    const inputs = ['  Opening hours  ', 'Monday', '8 to 6', 'Sunday', ''];
    const confirms = [true, true, false];
    const prompter: Partial<Prompter> = {
      input: async (o) => (asked.push(`input:${o.message}`), inputs.shift()!),
      select: async (o) => {
        asked.push(`select:${o.message}:${o.choices.map((c) => c.value).join(',')}`);
        return 'hours' as never;
      },
      confirm: async (o) => (asked.push(`confirm:${o.message}`), confirms.shift()!),
    };
    const io = fakeIO({ tty: true, prompter });
    const r = await h.run(['lists', 'create', '--json'], { io, env });
    expect(r.code).toBe(0);
    expect(asked).toEqual([
      'input:Title',
      'select:Template:faq,hours,links,menu,pricing,services,team',
      'confirm:Add an item?',
      'input:Item title',
      'input:Description (optional)',
      'confirm:Add another item?',
      'input:Item title',
      'input:Description (optional)',
      'confirm:Add another item?',
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({
      title: 'Opening hours',
      template_slug: 'hours',
      items: [{ title: 'Monday', description: '8 to 6' }, { title: 'Sunday' }],
    });
  });
});

describe('wcm lists ls', () => {
  it('piped: one tab-separated line per listing, newest first, no header', async () => {
    const all = await allListings();
    const r = await h.run(['lists', 'ls', '--limit', '100'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(all.map((l) => `${l.id}\t${l.title}\t${l.dashboard_url}\n`).join(''));
    expect(r.stdout).not.toMatch(/\x1b\[/);
  });

  it('one page: --json prints `data` only; the next cursor is offered on stderr and works', async () => {
    const all = await allListings();
    expect(all.length).toBeGreaterThan(2);
    const first = await h.run(['lists', 'ls', '--json', '--limit', '2'], { env });
    expect(JSON.parse(first.stdout)).toEqual(all.slice(0, 2));
    const cursor = /--cursor (\S+)/.exec(first.stderr)![1];
    const second = await h.run(['lists', 'ls', '--json', '--limit', '2', '--cursor', cursor], { env });
    expect(JSON.parse(second.stdout)).toEqual(all.slice(2, 4));
  });

  it('--all --json: one JSON array, written page by page as the pages arrive', async () => {
    const all = await allListings();
    const log: string[] = [];
    const io = fakeIO();
    io.stdout.write = (s: string) => (log.push(`OUT ${s}`), true);
    io.stderr.write = (s: string) => (log.push(`ERR ${s}`), true);
    const r = await h.run(['--debug', 'lists', 'ls', '--all', '--json', '--limit', '2'], { io, env });
    expect(r.code).toBe(0);
    const out = log
      .filter((l) => l.startsWith('OUT '))
      .map((l) => l.slice(4))
      .join('');
    expect(JSON.parse(out)).toEqual(all);
    // Items of the first page are on stdout before the second page is requested.
    const requests = log.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('ERR [debug] > GET'));
    expect(requests.length).toBe(Math.ceil(all.length / 2));
    const firstItem = log.findIndex((l) => l.includes(all[0].id));
    expect(firstItem).toBeGreaterThan(requests[0][1]);
    expect(firstItem).toBeLessThan(requests[1][1]);
  });

  it('on a terminal: a table with headers; colour only when allowed', async () => {
    const io = fakeIO({ tty: true, color: true });
    const r = await h.run(['lists', 'ls'], { io, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ID.*TITLE.*DASHBOARD/);
    expect(r.stdout).toMatch(/\x1b\[/);
    expect(r.stderr).toContain(`→ ${h.base} (WCM_BASE_URL) · workspace ${demo.ws1}`);
    const plain = fakeIO({ tty: true, color: false });
    await h.run(['lists', 'ls'], { io: plain, env });
    expect(plain.out()).not.toMatch(/\x1b\[/);
  });

  it.each([['0'], ['101'], ['abc']])('--limit %s: exit 2', async (limit) => {
    const r = await h.run(['lists', 'ls', '--limit', limit], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('`--limit` must be an integer from 1 to 100');
  });

  // A bad cursor is a usage error naming the flag (issue 37 #14), saying what is wrong with it.
  it('a tampered cursor: exit 2 naming --cursor', async () => {
    const r = await h.run(['lists', 'ls', '--cursor', 'garbage!'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('`--cursor garbage!` is not a cursor of this list');
  });

  it('--all --json that fails on the first page leaves stdout empty (no half array)', async () => {
    const r = await h.run(['lists', 'ls', '--all', '--json'], { env: { ...env, WCM_TOKEN: demo.revoked } });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).code).toBe('invalid_token');
  });

  it('a token without content:read: exit 4', async () => {
    const r = await h.run(['lists', 'ls'], { env: { ...env, WCM_TOKEN: demo.support } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('insufficient_ability');
  });

  it('no token at all: exit 4 saying how to log in', async () => {
    const r = await h.run(['lists', 'ls'], { env: { WCM_BASE_URL: h.base, WCM_WORKSPACE: demo.ws1 } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('wcm auth login');
  });

  it('no workspace: exit 2 saying how to choose one', async () => {
    const r = await h.run(['lists', 'ls'], { env: { WCM_BASE_URL: h.base, WCM_TOKEN: demo.owner } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--workspace');
  });
});

describe('wcm lists templates', () => {
  it('lists the catalog: piped rows and --json', async () => {
    const r = await h.run(['lists', 'templates'], { env });
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(['faq', 'hours', 'links', 'menu', 'pricing', 'services', 'team']);
    const j = await h.run(['lists', 'templates', '--json', '--all'], { env });
    expect(JSON.parse(j.stdout).map((t: { slug: string }) => t.slug)).toContain('faq');
  });
});
