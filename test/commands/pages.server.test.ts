import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Prompter } from '../../src/cli/io.js';
import { fakeIO, runInProcess } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

describe('wcm pages update (in-process, real server)', () => {
  let server: Awaited<ReturnType<typeof onPort>>;
  let cfg: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  // A fresh server for every test: each one updates the same page.
  beforeEach(async () => {
    server = await onPort();
    cfg = tempDir();
    env = { WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1, WCM_CONFIG_DIR: cfg.dir };
  });
  afterEach(async () => {
    await server.close();
    cfg.cleanup();
  });
  const page = () => server.store.get('pages', demo.pageHoliday)!;

  /** A prompter that answers by message and records what each prompt was pre-filled with. */
  function scripted(answers: Record<string, unknown>) {
    const asked: Array<{ message: string; default: unknown }> = [];
    const answer = (o: { message: string; default?: unknown }) => {
      asked.push({ message: o.message, default: o.default });
      return Promise.resolve((o.message in answers ? answers[o.message] : o.default) as never);
    };
    const prompter: Partial<Prompter> = {
      input: (o) => {
        const v = (o.message in answers ? answers[o.message] : o.default) as string;
        const ok = o.validate?.(v) ?? true;
        if (ok !== true) return Promise.reject(new Error(`validation refused ${o.message}: ${ok}`));
        return answer(o);
      },
      confirm: answer,
      select: answer as Prompter['select'],
    };
    return { prompter, asked };
  }

  it('on a terminal with no change flags: prompts pre-filled with the current values and sends only what changed', async () => {
    const before = page();
    const { prompter, asked } = scripted({
      Bio: 'Gift boxes: two bags and a mug.',
      'Published?': true,
      'Edit SEO, agent and chat settings too?': true,
      'SEO title': '',
      'Chat greeting': 'Gifts!',
    });
    const io = fakeIO({ tty: true, prompter });
    const r = await runInProcess(['pages', 'update', demo.pageHoliday], { io, env });
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code).toBe(0);
    const byMessage = Object.fromEntries(asked.map((a) => [a.message, a.default]));
    expect(byMessage).toMatchObject({
      Name: before.name,
      Slug: before.slug,
      'Display name': before.display_name,
      Bio: before.bio,
      'Published?': false,
      'SEO title': before.seo_title,
      'SEO description': '',
      'Schema type': 'WebPage',
      'Chat greeting': '',
    });
    const after = page();
    expect(after.bio).toBe('Gift boxes: two bags and a mug.');
    expect(after.published).toBe(true);
    expect(after.seo_title).toBeNull(); // emptied: cleared
    expect(after.chat).toEqual({ greeting: 'Gifts!' });
    // Unchanged answers were not sent: everything else is as it was.
    const { bio: _b, published: _p, seo_title: _s, chat: _c, updated_at: _u, ...rest } = after;
    const { bio: _b2, published: _p2, seo_title: _s2, chat: _c2, updated_at: _u2, ...restBefore } = before;
    expect(rest).toEqual(restBefore);
    expect(r.stdout).toContain('Gift boxes: two bags and a mug.');
  });

  it('on a terminal, nothing changed: says so, sends nothing, exit 0', async () => {
    const before = page();
    const { prompter } = scripted({});
    const r = await runInProcess(['pages', 'update', demo.pageHoliday], { io: fakeIO({ tty: true, prompter }), env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Nothing changed; nothing was sent.');
    expect(page()).toBe(before); // the same frozen record: no write happened
  });

  it('piped with no change flags: usage error, exit 2, no prompt', async () => {
    const before = page();
    const r = await runInProcess(['pages', 'update', demo.pageHoliday], { io: fakeIO({ tty: false }), env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Nothing to change');
    expect(page()).toBe(before);
  });

  it('--publish and --unpublish together: usage error, exit 2', async () => {
    const r = await runInProcess(['pages', 'update', demo.pageHoliday, '--publish', '--unpublish'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('`--publish` and `--unpublish` cannot be used together');
  });

  it('flags on a terminal skip the prompts', async () => {
    const { prompter, asked } = scripted({});
    const r = await runInProcess(['pages', 'update', demo.pageHoliday, '--set', 'chat.greeting=Hello', '--json'], {
      io: fakeIO({ tty: true, prompter }),
      env,
    });
    expect(r.code).toBe(0);
    expect(asked).toEqual([]);
    expect(JSON.parse(r.stdout).chat.greeting).toBe('Hello');
  });

  it('a server refusal maps to its exit code and changes nothing (422 → 3)', async () => {
    const before = page();
    const r = await runInProcess(['pages', 'update', demo.pageHoliday, '--set', `bio=${'x'.repeat(501)}`], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('bio');
    expect(page()).toBe(before);
  });
});
