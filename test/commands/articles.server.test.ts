import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeIO, runInProcess } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;
// A fresh server (and config directory) for every test: tests here write, and none may see another's writes.
beforeEach(async () => {
  server = await onPort();
  tmp = tempDir();
  env = { WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1, WCM_CONFIG_DIR: tmp.dir };
});
afterEach(async () => {
  await server.close();
  tmp.cleanup();
});
const tty = () => fakeIO({ tty: true });

describe('wcm articles on a terminal', () => {
  it('ls: a table with a header, statuses and version numbers', async () => {
    const r = await runInProcess(['articles', 'ls', demo.knowledgeList], { io: tty(), env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TITLE\s+STATUS\s+CURRENT\s+PUBLISHED\s+UPDATED/);
    expect(lines.find((l) => l.startsWith(demo.articleNeverPublished))).toMatch(/Allergens\s+draft\s+v1\s+—/);
    expect(lines.find((l) => l.startsWith(demo.article4Versions))).toMatch(/published\s+v4\s+v3/);
  });

  it('restore: says which version became which, and whether it is published', async () => {
    const r = await runInProcess(['articles', 'restore', demo.knowledgeList, demo.article3Versions, '1'], {
      io: tty(),
      env,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Restored version 1 as version 4 (not published).');
    const p = await runInProcess(['articles', 'restore', demo.knowledgeList, demo.article3Versions, '4', '--publish'], {
      io: tty(),
      env,
    });
    expect(p.stdout).toContain('Restored version 4 as version 5 (published).');
  });

  it('show: the article, then its versions with the current and live ones marked', async () => {
    const r = await runInProcess(['articles', 'show', demo.knowledgeList, demo.articleNeverPublished], {
      io: tty(),
      env,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/status\s+draft/);
    expect(r.stdout).toMatch(/v1 current\s+no\s+—/);
  });

  it('an unknown list: exit 5 and the problem on stderr', async () => {
    const r = await runInProcess(['articles', 'ls', '00000000-0000-4000-8000-000000000000'], { io: tty(), env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('knowledge_list_not_found');
  });
});

describe('wcm forms update', () => {
  it('accepts {"fields": [...]} in --fields-file as well as a bare array', async () => {
    writeFileSync(path.join(tmp.dir, 'wrapped.json'), JSON.stringify({ fields: [{ id: 'q', label: 'Question' }] }));
    const r = await runInProcess(
      ['forms', 'update', demo.formCatering, '--fields-file', path.join(tmp.dir, 'wrapped.json'), '--json'],
      { env },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).fields).toEqual([{ id: 'q', label: 'Question', required: false }]);
  });

  it('a --file that is not one JSON object is a usage error; nothing is sent', async () => {
    writeFileSync(path.join(tmp.dir, 'array.json'), '[1]');
    const before = server.store.get('forms', demo.formCatering);
    const r = await runInProcess(['forms', 'update', demo.formCatering, '--file', path.join(tmp.dir, 'array.json')], {
      env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('`--file` must hold one JSON object');
    expect(server.store.get('forms', demo.formCatering)).toBe(before);
  });

  it('a form of another workspace: exit 5, never revealed', async () => {
    const r = await runInProcess(['forms', 'update', 'c571bc30-2f5b-4fb3-92b7-2b1ab7c4cbf5', '--name', 'x'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('form_not_found');
  });
});
