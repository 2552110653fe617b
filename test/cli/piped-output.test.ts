import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

// Piped output is for scripts: a value that is not there is an empty field (never `—`, which a
// terminal shows), and every command that prints rows says in its --help which columns they are.
let server: Awaited<ReturnType<typeof onPort>>;
let dir: ReturnType<typeof tempDir>;
let env: Record<string, string>;
beforeAll(async () => {
  server = await onPort();
  dir = tempDir();
  writeFileSync(
    path.join(dir.dir, 'config.json'),
    JSON.stringify({
      current_profile: 'demo',
      profiles: { demo: { base_url: server.url, token: demo.owner, workspace: demo.ws1 } },
    }),
  );
  env = { WCM_CONFIG_DIR: dir.dir };
});
afterAll(async () => {
  await server.close();
  dir.cleanup();
});
const piped = (args: string[]) => runInProcess(args, { env });

describe('piped show: null is an empty field', () => {
  it('pages show: the unset members are key<TAB> and nothing else', async () => {
    const r = await piped(['pages', 'show', demo.pageHoliday]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('—');
    const lines = r.stdout.replace(/\n$/, '').split('\n');
    for (const key of ['seo_description', 'aeo_summary', 'agent_instructions', 'chat.greeting', 'updated_at'])
      expect(lines).toContain(`${key}\t`);
    expect(lines).toContain('seo_title\tHoliday coffee gift boxes');
  });

  it('forms show and articles restore: no `—` when piped', async () => {
    const form = await piped(['forms', 'show', demo.formCatering]);
    expect(form.code, form.stderr).toBe(0);
    expect(form.stdout).not.toContain('—');
    const restored = await piped(['articles', 'restore', demo.knowledgeList, demo.articleNeverPublished, '1']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout.split('\n')).toContain('published_version\t');
  });

  it('on a terminal the same nulls still show as —', async () => {
    const { fakeIO } = await import('../support/cli.js');
    const io = fakeIO({ tty: true });
    const r = await runInProcess(['pages', 'show', demo.pageHoliday], { env, io });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/seo_description\s+—/);
  });
});

/** The columns --help names after "Piped output is tab-separated:" (commas inside brackets don't split). */
function helpColumns(help: string): string[] {
  const m = /Piped output is tab-separated: ([\s\S]*?)\.(?:\s*\n|$)/.exec(help);
  if (!m) return [];
  const text = m[1].replace(/\s+/g, ' ');
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of text) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

describe('--help names the piped columns of every command that prints rows', () => {
  it.each([
    [['lists', 'ls']],
    [['lists', 'templates']],
    [['forms', 'ls']],
    [['pages', 'ls']],
    [['knowledge', 'ls']],
    [['articles', 'ls', demo.knowledgeList]],
    [['offers', 'ls']],
    [['agents', 'ls']],
    [['threads', 'ls']],
    [['bookings', 'ls']],
    [['voice', 'ls']],
    [['oauth', 'apps', 'ls']],
    [['profile', 'ls']],
  ])('%j: as many columns as a piped row has fields', async (args) => {
    const help = await piped([...args.filter((a) => a !== demo.knowledgeList), '--help']);
    const named = helpColumns(help.stdout);
    expect(named.length, help.stdout).toBeGreaterThan(0);
    const r = await piped(args);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.replace(/\n$/, '').split('\n');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.split('\t')).toHaveLength(named.length);
  });

  it.each([
    [['local', 'orders']],
    [['local', 'events']],
    [['local', 'snapshot', 'ls']],
    [['local', 'faults', 'ls']],
    [['oauth', 'grants', 'ls']],
  ])('%j: --help names them', async (args) => {
    const help = await piped([...args, '--help']);
    expect(helpColumns(help.stdout).length, help.stdout).toBeGreaterThan(1);
  });

  it('local orders and events: as many columns as a piped row has fields', async () => {
    const data = path.join(server.dir, 'store.json');
    for (const args of [
      ['local', 'orders'],
      ['local', 'events'],
    ]) {
      const named = helpColumns((await piped([...args, '--help'])).stdout);
      const r = await piped([...args, '--data', data]);
      expect(r.code, r.stderr).toBe(0);
      for (const row of r.stdout.replace(/\n$/, '').split('\n').filter(Boolean))
        expect(row.split('\t'), args.join(' ')).toHaveLength(named.length);
    }
  });
});
