import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wcm } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

// The built binary (`npm run build` first) against a real server on a free port.
let server: Awaited<ReturnType<typeof onPort>>;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;
beforeAll(async () => {
  server = await onPort();
  tmp = tempDir();
  env = {
    WCM_BASE_URL: server.url,
    WCM_TOKEN: demo.owner,
    WCM_WORKSPACE: demo.ws1,
    WCM_CONFIG_DIR: path.join(tmp.dir, 'config'),
  };
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const run = (args: string[], extra: Record<string, string> = {}) =>
  wcm(args, { env: { ...env, ...extra }, cwd: tmp.dir });
const file = (name: string, value: unknown) => {
  writeFileSync(path.join(tmp.dir, name), typeof value === 'string' ? value : JSON.stringify(value));
  return name;
};
/** Piped key/value output as an object. */
const fields = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t') as [string, string]),
  );

describe('wcm forms', () => {
  it('update --name, then --fields-file, then --file with a merge patch; members not sent stay', async () => {
    const a = await run(['forms', 'update', demo.formCatering, '--name', 'Catering quote']);
    expect(a.exitCode).toBe(0);
    expect(fields(a.stdout)).toMatchObject({ id: demo.formCatering, name: 'Catering quote' });

    const b = await run([
      'forms',
      'update',
      demo.formCatering,
      '--fields-file',
      file('fields.json', [
        { id: 'email', label: 'Email', required: true },
        { id: 'size', label: 'Size', options: ['S', 'M'] },
      ]),
    ]);
    expect(b.exitCode).toBe(0);
    expect(fields(b.stdout).fields).toBe('email*, size (2 options)');

    const c = await run([
      'forms',
      'update',
      demo.formCatering,
      '--file',
      file('patch.json', { settings: { notify_email: null, locale: 'fr' } }),
      '--json',
    ]);
    expect(c.exitCode).toBe(0);
    const form = JSON.parse(c.stdout);
    expect(form.name).toBe('Catering quote');
    expect(form.fields).toEqual([
      { id: 'email', label: 'Email', required: true },
      { id: 'size', label: 'Size', required: false, options: ['S', 'M'] },
    ]);
    expect(form.settings).toEqual({
      success_message: "Thanks! We'll confirm your catering quote within one business day.",
      locale: 'fr',
    });

    const get = await run(['forms', 'get', demo.formCatering, '--json']);
    expect(JSON.parse(get.stdout)).toEqual(form);
  });

  it.each([
    ['no change flags', 2, [], 'Nothing to change'],
    ['a missing --file', 2, ['--file', 'nope.json'], '`--file`: cannot read'],
    ['--fields-file that is not an array', 2, ['--fields-file', 'obj.json'], '`--fields-file` must hold a JSON array'],
    ['a field id over 64 characters', 3, ['--fields-file', 'long.json'], 'fields.0.id'],
  ])('%s: exit %i', async (_n, code, args, message) => {
    file('obj.json', { a: 1 });
    file('long.json', [{ id: 'i'.repeat(65), label: 'x' }]);
    const r = await run(['forms', 'update', demo.formCatering, ...args]);
    expect(r.exitCode).toBe(code);
    expect(r.stderr).toContain(message);
  });

  it('unknown form: exit 5 with the problem on stderr', async () => {
    const r = await run(['forms', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('form_not_found');
  });
});

describe('wcm pages', () => {
  it('update with --set dotted paths, typed values, --slug and --unpublish', async () => {
    const r = await run([
      'pages',
      'update',
      demo.pageAcme,
      '--slug',
      'acme',
      '--unpublish',
      '--set',
      'chat.greeting=Hi there',
      '--set',
      'robots_index=false',
      '--set',
      'seo_title=null',
      '--json',
    ]);
    expect(r.exitCode).toBe(0);
    const page = JSON.parse(r.stdout);
    expect(page).toMatchObject({ slug: 'acme', published: false, robots_index: false, seo_title: null });
    expect(page.chat.greeting).toBe('Hi there');
    expect(page.chat.suggested_replies).toHaveLength(3); // not sent: kept
    const back = await run(['pages', 'update', demo.pageAcme, '--publish']);
    expect(back.exitCode).toBe(0);
    expect(fields(back.stdout).published).toBe('true');
    expect(server.store.get('pages', demo.pageAcme)!.published).toBe(true);
  });

  it('--file is the base body; flags override it', async () => {
    const r = await run([
      'pages',
      'update',
      demo.pageHoliday,
      '--file',
      file('page.json', { name: 'From file', bio: 'From file' }),
      '--name',
      'From flag',
      '--json',
    ]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'From flag', bio: 'From file' });
  });

  it.each([
    ['piped with no change flags', 2, [], 'Nothing to change'],
    ['--publish with --unpublish', 2, ['--publish', '--unpublish'], 'cannot be used together'],
    ['--set without =', 2, ['--set', 'bio'], '`--set` takes key=value'],
    ['a slug the server refuses', 3, ['--slug', 'Not A Slug'], 'slug'],
  ])('%s: exit %i, nothing changed', async (_n, code, args, message) => {
    const before = server.store.get('pages', demo.pageHoliday);
    const r = await run(['pages', 'update', demo.pageHoliday, ...args]);
    expect(r.exitCode).toBe(code);
    expect(r.stderr).toContain(message);
    expect(server.store.get('pages', demo.pageHoliday)).toBe(before);
  });

  it('a token without content:write: exit 4, page unchanged', async () => {
    const before = server.store.get('pages', demo.pageAcme);
    const r = await run(['pages', 'update', demo.pageAcme, '--unpublish'], { WCM_TOKEN: demo.contentReader });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('insufficient_ability');
    expect(server.store.get('pages', demo.pageAcme)).toBe(before);
  });
});

describe('wcm articles', () => {
  it('ls prints one tab-separated row per article; --all --json one array', async () => {
    const r = await run(['articles', 'ls', demo.knowledgeList]);
    expect(r.exitCode).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.find((x) => x[0] === demo.article4Versions)).toEqual([
      demo.article4Versions,
      'Bean subscription: how it works',
      'published',
      '4',
      '3',
      '2026-11-19T17:00:00.000Z',
    ]);
    expect(rows.find((x) => x[0] === demo.articleNeverPublished)?.slice(2, 5)).toEqual(['draft', '1', '']);
    const all = await run(['articles', 'ls', demo.knowledgeList, '--all', '--limit', '1', '--json']);
    expect(all.exitCode).toBe(0);
    expect(
      JSON.parse(all.stdout)
        .map((a: { id: string }) => a.id)
        .sort(),
    ).toEqual([demo.article3Versions, demo.article4Versions, demo.articleNeverPublished].sort());
  });

  it('restore prints the new version number and whether it is published, with and without --publish', async () => {
    const a = await run(['articles', 'restore', demo.knowledgeList, demo.article4Versions, '1']);
    expect(a.exitCode).toBe(0);
    expect(fields(a.stdout)).toMatchObject({
      version: '5',
      published: 'false',
      restored_from: '1',
      published_version: '3',
    });
    const versionId = server.store.get('articles', demo.article4Versions)!.versions[1].id;
    const b = await run(['articles', 'restore', demo.knowledgeList, demo.article4Versions, versionId, '--publish']);
    expect(b.exitCode).toBe(0);
    expect(fields(b.stdout)).toMatchObject({
      version: '6',
      published: 'true',
      restored_from: '2',
      published_version: '6',
    });
    const show = await run(['articles', 'show', demo.knowledgeList, demo.article4Versions]);
    expect(show.exitCode).toBe(0);
    const rows = show.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((x) => x.slice(0, 3))).toEqual([
      ['1', 'true', ''],
      ['2', 'true', ''],
      ['3', 'true', ''],
      ['4', 'false', ''],
      ['5', 'false', '1'],
      ['6', 'true', '2'],
    ]);
  });

  it('20 concurrent restores over real sockets get 20 distinct, consecutive numbers', async () => {
    const url = `${server.url}/workspaces/${demo.ws1}/knowledge-lists/${demo.knowledgeList}/articles/${demo.articleNeverPublished}/versions/1/restore`;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
          body: '{"publish": false}',
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const numbers = (await Promise.all(responses.map((r) => r.json())))
      .map((b: any) => b.data.version.number)
      .sort((a: number, b: number) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
  });

  it.each([
    ['unknown version', [demo.knowledgeList, demo.article3Versions, '42'], 'version_not_found'],
    ['unknown article', [demo.knowledgeList, '00000000-0000-4000-8000-000000000000', '1'], 'article_not_found'],
    ['unknown list', ['00000000-0000-4000-8000-000000000000', demo.article3Versions, '1'], 'knowledge_list_not_found'],
  ])('restore of an %s: exit 5 with its own code', async (_n, args, code) => {
    const r = await run(['articles', 'restore', ...args, '--json']);
    expect(r.exitCode).toBe(5);
    expect(JSON.parse(r.stderr).code).toBe(code);
  });
});
