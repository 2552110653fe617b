// Issue 48, major 6: export → import → export is lossless on both stores, every member of every
// collection, for records made through the API (which carry members the demo fixture leaves out,
// such as an OAuth app's `created_by`) as well as for the fixture's own.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { freshSchema } from '../support/postgres.js';
import { DEMO, demo, tempDir } from '../support/server.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('wcm-round-trip-')));
afterEach(() => cleanup());

type Doc = Record<string, unknown> & { version: number };

/** Every collection, record by record and member by member, with the path of the first difference. */
function expectSame(actual: Doc, expected: Doc): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [c, records] of Object.entries(expected)) {
    if (!Array.isArray(records)) {
      expect(actual[c], c).toEqual(records);
      continue;
    }
    const got = actual[c] as Array<Record<string, unknown>>;
    expect(got, c).toHaveLength(records.length);
    records.forEach((r: Record<string, unknown>, i) => {
      expect(Object.keys(got[i]), `${c}[${i}] members`).toEqual(Object.keys(r));
      for (const k of Object.keys(r)) expect(got[i][k], `${c}[${i}].${k}`).toEqual(r[k]);
    });
  }
}

it('export → import → export keeps every member of every collection, on the JSON store and on PostgreSQL', async () => {
  const env = { WCM_CONFIG_DIR: path.join(dir, 'config') };
  const data = path.join(dir, 'a.json');
  const s = await spawnServe(['--data', data, '--seed', DEMO], { env, cwd: dir });
  const api = { env: { ...env, WCM_TOKEN: demo.owner, WCM_BASE_URL: s.url, WCM_WORKSPACE: demo.ws1 } };
  try {
    // Records made through the API, with the members only the API writes.
    const app = await wcm(
      ['oauth', 'apps', 'create', '--name', 'Round trip', '--redirect-uri', 'http://127.0.0.1/cb', '--json'],
      api,
    );
    expect(app.exitCode, app.stderr).toBe(0);
    const made = [
      ['lists', 'create', '--title', 'Round trip', '--template', 'faq', '--item', 'Q?: A'],
      ['articles', 'restore', demo.knowledgeList, demo.article4Versions, '1', '--publish'],
      ['agents', 'opened', demo.agent1],
      ['commerce', 'pay', demo.offerFixedUsd, '--quantity', '2', '--email', 'bo@example.com'],
      ['pages', 'update', demo.pageAcme, '--set', 'bio=Round trip'],
    ];
    for (const args of made) {
      const r = await wcm(args, api);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
  } finally {
    s.proc.kill('SIGTERM');
    await s.proc;
  }
  const run = (args: string[]) => wcm(args, { env, cwd: dir });
  expect((await run(['local', 'export', 'e1.json', '--data', data])).exitCode).toBe(0);
  const e1 = JSON.parse(readFileSync(path.join(dir, 'e1.json'), 'utf8')) as Doc;
  // The API's own members are there to lose: an app's creator, an order, an event, a restored version.
  const apps = e1.oauth_apps as Array<{ name: string; created_by?: string }>;
  expect(apps.find((a) => a.name === 'Round trip')?.created_by).toMatch(/^usr_/);
  expect((e1.orders as unknown[]).length).toBeGreaterThan(0);
  expect((e1.analytics_events as unknown[]).length).toBeGreaterThan(0);

  // JSON store.
  expect((await run(['local', 'import', 'e1.json', '--data', 'b.json'])).exitCode).toBe(0);
  expect((await run(['local', 'export', 'e2.json', '--data', 'b.json'])).exitCode).toBe(0);
  const e2text = readFileSync(path.join(dir, 'e2.json'), 'utf8');
  expectSame(JSON.parse(e2text) as Doc, e1);
  expect(e2text).toBe(readFileSync(path.join(dir, 'e1.json'), 'utf8'));

  // PostgreSQL.
  const { url } = await freshSchema();
  const into = await run(['local', 'import', 'e1.json', '--store', url]);
  expect(into.exitCode, into.stderr).toBe(0);
  expect((await run(['local', 'export', 'e3.json', '--store', url])).exitCode).toBe(0);
  const e3text = readFileSync(path.join(dir, 'e3.json'), 'utf8');
  expectSame(JSON.parse(e3text) as Doc, e1);
  expect(e3text).toBe(readFileSync(path.join(dir, 'e1.json'), 'utf8'));
});
