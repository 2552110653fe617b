import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wcm } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

// The built binary (`npm run build` first) against a real server on a free port, with JSON piped
// into the file flags (`-`), `forms update --set` and `articles restore --no-publish`. Each test
// changes a record of its own (a form, a page, a new listing, an article), so they share the server.
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

const run = (args: string[], input?: string) => wcm(args, { env, cwd: tmp.dir, input });
const json = async (args: string[]) => {
  const r = await run([...args, '--json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
};

describe('file flags read standard input for -', () => {
  it('forms update --file - sends the piped body', async () => {
    const r = await run(['forms', 'update', demo.formCatering, '--file', '-'], JSON.stringify({ name: 'Piped form' }));
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await json(['forms', 'show', demo.formCatering])).name).toBe('Piped form');
  });

  it('forms update --fields-file - replaces the fields with the piped array', async () => {
    const fields = [{ id: 'email', label: 'Email', required: true }];
    const r = await run(['forms', 'update', demo.formCatering, '--fields-file', '-'], JSON.stringify(fields));
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await json(['forms', 'show', demo.formCatering])).fields).toEqual(fields);
  });

  it('pages update --file - sends the piped body', async () => {
    const r = await run(['pages', 'update', demo.pageAcme, '--file', '-'], JSON.stringify({ bio: 'Bio from a pipe' }));
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await json(['pages', 'show', demo.pageAcme])).bio).toBe('Bio from a pipe');
  });

  it('lists create --items-file - takes the piped items', async () => {
    const items = [{ title: 'Hours?', description: '8 to 6' }, { title: 'Parking?' }];
    const r = await run(
      ['lists', 'create', '--title', 'Piped FAQ', '--template', 'faq', '--items-file', '-', '--json'],
      JSON.stringify(items),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout) as { items: Array<{ title: string; description: string | null }> };
    expect(created.items.map((i) => [i.title, i.description ?? null])).toEqual([
      ['Hours?', '8 to 6'],
      ['Parking?', null],
    ]);
  });

  it('seed - runs the piped steps', async () => {
    const steps = {
      version: 1,
      steps: [
        {
          name: 'faq',
          operation: 'createListing',
          body: { title: 'Seeded from stdin', template_slug: 'faq', items: [{ title: 'Q?' }] },
        },
      ],
    };
    const r = await run(['seed', '-', '--json'], JSON.stringify(steps));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).steps.faq.data.title).toBe('Seeded from stdin');
  });

  it('piped text that is not JSON names the flag and standard input (exit 2)', async () => {
    const r = await run(['forms', 'update', demo.formCatering, '--file', '-'], '{not json');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('`--file`: standard input is not valid JSON');
  });

  it('two flags that read standard input are refused before anything is sent (exit 2)', async () => {
    const before = (await json(['pages', 'show', demo.pageHoliday])).updated_at;
    const r = await run(
      ['pages', 'update', demo.pageHoliday, '--file', '-', '--set', 'bio=@-'],
      JSON.stringify({ name: 'never' }),
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('`--file -` and `--set …=@-` both read standard input, which can be read once.');
    expect((await json(['pages', 'show', demo.pageHoliday])).updated_at).toBe(before);
    const f = await run(['forms', 'update', demo.formCatering, '--file', '-', '--fields-file', '-'], '{}');
    expect(f.exitCode).toBe(2);
    expect(f.stderr).toContain('`--file -` and `--fields-file -` both read standard input');
  });
});

describe('forms update --set', () => {
  it('sets typed members with dotted keys, merged into settings', async () => {
    const r = await run([
      'forms',
      'update',
      demo.formCatering,
      '--set',
      'name=Set by flag',
      '--set',
      'settings.notify_email=ops@example.com',
      '--set',
      'design.columns=2',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const form = await json(['forms', 'show', demo.formCatering]);
    expect(form.name).toBe('Set by flag');
    expect((form.settings as Record<string, unknown>).notify_email).toBe('ops@example.com');
    expect((form.design as Record<string, unknown>).columns).toBe(2);
  });

  it('--set k=@- reads the value from standard input', async () => {
    const r = await run(['forms', 'update', demo.formCatering, '--set', 'name=@-'], 'Named from stdin');
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await json(['forms', 'show', demo.formCatering])).name).toBe('Named from stdin');
  });
});

describe('articles restore --no-publish', () => {
  it('is accepted, and sends publish false: the new version is not published', async () => {
    const a = await json(['articles', 'restore', demo.knowledgeList, demo.article3Versions, '1', '--no-publish']);
    expect((a.version as { published: boolean }).published).toBe(false);
    const b = await json(['articles', 'restore', demo.knowledgeList, demo.article3Versions, '1', '--publish']);
    expect((b.version as { published: boolean }).published).toBe(true);
    expect((b.article as { published_version: number }).published_version).toBe(
      (b.version as { number: number }).number,
    );
  });
});
