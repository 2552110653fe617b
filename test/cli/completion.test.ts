// Shell completion: the engine through the binary's hidden entry point (`wcm __complete WORD… CURRENT`),
// then the generated scripts in real bash, zsh and fish (skipped only where the shell is not installed;
// .ci/run installs zsh and fish).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/cli/config.js';
import { LISTING_TEMPLATES } from '../../src/api/listings/schemas.js';
import { BIN, runInProcess } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

let dir: ReturnType<typeof tempDir>;
let server: Awaited<ReturnType<typeof onPort>>;
let env: Record<string, string>;
beforeAll(async () => {
  dir = tempDir('wcm-completion-');
  server = await onPort();
  env = { WCM_CONFIG_DIR: dir.dir, WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 };
  const profiles = await ProfileStore.open({ WCM_CONFIG_DIR: dir.dir });
  await profiles.set('staging', { base_url: 'https://staging.example.com/v1' });
  await profiles.set('local', { base_url: server.url });
  // `wcm` on PATH for the scripts: the built binary.
  mkdirSync(path.join(dir.dir, 'bin'));
  writeFileSync(path.join(dir.dir, 'bin', 'wcm'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(path.join(dir.dir, 'bin', 'wcm'), 0o755);
  writeFileSync(path.join(dir.dir, 'fixture-a.json'), '{}');
});
afterAll(async () => {
  await server.close();
  dir.cleanup();
});

/** The engine's answer for a line whose last word is being typed: candidates, and whether files complete. */
async function engine(line: string, extra: Record<string, string> = {}) {
  const r = await runInProcess(['__complete', ...line.split(' ')], { env: { ...env, ...extra } });
  expect(r.code).toBe(0);
  const lines = r.stdout.trimEnd().split('\n');
  const directive = lines.pop();
  return { values: lines.map((l) => l.split('\t')[0]), lines, files: directive === ':files' };
}

const ws1 = <C extends 'forms' | 'knowledge_lists' | 'articles'>(c: C) =>
  [...server.store.values(c)].filter((r) => !('workspace_id' in r) || r.workspace_id === demo.ws1);

describe('the completion engine (wcm __complete)', () => {
  it.each<[string, string[]]>([
    ['thr', ['threads']],
    ['threads ', ['ls', 'show']],
    ['oauth apps ', ['create', 'ls', 'rm']],
    ['local snapshot r', ['restore', 'rm']],
    ['threads ls --vi', ['--view']],
    ['threads ls --j', ['--json', '--jq']],
    ['threads ls --view ', ['inbox', 'unread', 'starred', 'closed']],
    ['voice ls --kind ', ['call', 'voice_message']],
    ['serve --payments ', ['local', 'stripe']],
    ['completion ', ['bash', 'zsh', 'fish']],
    ['open in', ['inbox']],
    ['--profile ', ['staging', 'local']],
    ['threads ls --profile s', ['staging']],
    ['profile use ', ['staging', 'local']],
    ['local reset --to ', ['seed', 'empty']],
    ['local faults ', ['ls', 'set', 'add', 'clear']],
    // `local clock` is a command (it shows the clock) and the group of set and clear.
    ['local clock ', ['set', 'clear']],
    ['local clock set --o', ['--offset']],
  ])('%j → %j', async (line, expected) => {
    expect((await engine(line)).values.sort()).toEqual([...expected].sort());
  });

  it.each([
    'seed ',
    'seed steps.json --output ',
    'lists create --items-file ',
    'forms update e5bfd74f-95a3-4f41-b615-83ee8cf45bca --fields-file ',
    'pages update 71184361-1989-42ed-9156-e4650146c0d5 --file ',
    'api /me --input ',
    'serve --data ',
    'serve --seed ',
    'local import ',
    'local export ',
  ])('%j completes file names', async (line) => {
    expect(await engine(line)).toEqual({ values: [], lines: [], files: true });
  });

  it('ids come with their names; `get` completes like `show`', async () => {
    const forms = ws1('forms');
    const got = await engine('forms get ');
    expect(got.lines.sort()).toEqual(forms.map((f) => `${f.id}\t${f.name}`).sort());
    expect(got.files).toBe(false);
  });

  it('`articles show LIST <TAB>` offers the articles of that list; LIST itself only lists with articles', async () => {
    const articles = [...server.store.values('articles')].filter((a) => a.list_id === demo.knowledgeList);
    expect((await engine(`articles show ${demo.knowledgeList} `)).values.sort()).toEqual(
      articles.map((a) => a.id).sort(),
    );
    const withArticles = ws1('knowledge_lists').filter((k) =>
      [...server.store.values('articles')].some((a) => a.list_id === k.id),
    );
    expect((await engine('articles show ')).values.sort()).toEqual(withArticles.map((k) => k.id).sort());
    // The versions of the chosen article, newest first, labelled as `articles show` labels them.
    expect((await engine(`articles restore ${demo.knowledgeList} ${demo.article3Versions} `)).lines).toEqual([
      expect.stringMatching(/^3\tv3 /),
      expect.stringMatching(/^2\tv2 /),
      expect.stringMatching(/^1\tv1 /),
    ]);
  });

  it('--template offers the templates, -w the workspaces, each with its name', async () => {
    expect((await engine('lists create --template ')).lines).toEqual(
      LISTING_TEMPLATES.map((t) => `${t.slug}\t${t.name}`),
    );
    expect((await engine('threads ls -w ')).lines).toEqual(expect.arrayContaining([`${demo.ws1}\tAcme Coffee`]));
  });

  it('ids come from the target named on the line (--base-url before the command)', async () => {
    const got = await engine(`--base-url ${server.url} forms show `, { WCM_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(got.values).toContain(demo.formCatering);
  });

  it('offers nothing, silently, when the target cannot be reached', async () => {
    const started = Date.now();
    const r = await runInProcess(['__complete', 'forms', 'show', ''], {
      env: { ...env, WCM_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    expect(r).toEqual({ code: 0, stdout: ':done\n', stderr: '' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('a server that never answers: nothing after the 1.5 s bound', async () => {
    const hanging = http.createServer(() => {});
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    try {
      const started = Date.now();
      const got = await engine('threads show ', {
        WCM_BASE_URL: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/v1`,
      });
      expect(got.values).toEqual([]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      hanging.closeAllConnections();
      hanging.close();
    }
  });

  it('an unknown shell is exit 2 naming the shells', async () => {
    const bad = await runInProcess(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('bash, zsh, fish');
  });
});

const has = async (shell: string) =>
  (await execa('sh', ['-c', `command -v ${shell}`], { reject: false })).exitCode === 0;
const shellEnv = () => ({ ...env, PATH: `${path.join(dir.dir, 'bin')}:${process.env.PATH}` });

async function script(shell: string): Promise<string> {
  const r = await runInProcess(['completion', shell]);
  expect(r.code).toBe(0);
  const file = path.join(dir.dir, `wcm.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

describe('the scripts in real shells', () => {
  it('bash: COMPREPLY holds ids only (bash shows no descriptions), file names for file flags', async () => {
    const file = await script('bash');
    const run = async (words: string[]) => {
      const arr = words.map((w) => `'${w}'`).join(' ');
      const r = await execa(
        'bash',
        [
          '-c',
          `source '${file}'; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _wcm; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { env: shellEnv(), cwd: dir.dir, reject: false },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(Boolean).sort();
    };
    expect(await run(['wcm', 'threads', ''])).toEqual(['ls', 'show']);
    expect(await run(['wcm', 'forms', 'show', ''])).toEqual(
      ws1('forms')
        .map((f) => f.id)
        .sort(),
    );
    expect(await run(['wcm', 'seed', 'fix'])).toEqual(['fixture-a.json']);
  });

  it('zsh: a native script (no bashcompinit); ids described by their names, _files for file flags', async (ctx) => {
    if (!(await has('zsh'))) return ctx.skip();
    const file = await script('zsh');
    const text = (await runInProcess(['completion', 'zsh'])).stdout;
    expect(text).toMatch(/^#compdef wcm/);
    expect(text).not.toContain('bashcompinit');
    // compsys's _describe and _files stand in as printers: what the script hands them is what zsh shows.
    const run = async (words: string[]) => {
      const arr = words.map((w) => `'${w}'`).join(' ');
      const r = await execa(
        'zsh',
        [
          '-f',
          '-c',
          `compdef() {}; _describe() { print -rl -- "\${(@P)\${@[-1]}}" }; _files() { print FILES }; source '${file}'; words=(${arr}); CURRENT=${words.length}; _wcm`,
        ],
        { env: shellEnv(), reject: false },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(Boolean).sort();
    };
    expect(await run(['wcm', 'forms', 'show', ''])).toEqual(
      ws1('forms')
        .map((f) => `${f.id}:${f.name}`)
        .sort(),
    );
    expect(await run(['wcm', 'lists', 'create', '--items-file', ''])).toEqual(['FILES']);
    expect(await run(['wcm', 'threads', 'ls', '--view', 'u'])).toEqual(['unread']);
  });

  it('zsh with compinit: the script loads from fpath (#compdef) and lists ids as "id -- name"', async (ctx) => {
    if (!(await has('zsh'))) return ctx.skip();
    const fdir = path.join(dir.dir, 'zfunc');
    mkdirSync(fdir, { recursive: true });
    writeFileSync(path.join(fdir, '_wcm'), (await runInProcess(['completion', 'zsh'])).stdout);
    // An interactive zsh on a pseudo-terminal (zpty): TAB after `wcm forms show `, read until a form's name is listed.
    const driver = [
      'zmodload zsh/zpty',
      "zpty -b z 'zsh -f -i'",
      `zpty -w z 'PS1="> "; fpath=(${fdir} $fpath); autoload -U compinit; compinit -u'`,
      "zpty -w -n z $'wcm forms show \\t'",
      "zpty -r z out '*Catering request*'",
      'print -r -- "$out"',
      'zpty -d z',
    ].join('\n');
    const r = await execa('zsh', ['-f', '-c', driver], { env: shellEnv(), reject: false, timeout: 20_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const listed = r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    for (const form of ws1('forms')) expect(listed).toContain(`${form.id}  -- ${form.name}`);
  });

  it('fish: complete -C shows ids with their names, and file names for file arguments', async (ctx) => {
    if (!(await has('fish'))) return ctx.skip();
    const file = await script('fish');
    const run = async (line: string) => {
      const r = await execa('fish', ['--no-config', '-c', `source '${file}'; complete -C '${line}'`], {
        env: shellEnv(),
        cwd: dir.dir,
        reject: false,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(Boolean).sort();
    };
    expect(await run('wcm forms show ')).toEqual(
      ws1('forms')
        .map((f) => `${f.id}\t${f.name}`)
        .sort(),
    );
    expect(await run('wcm seed fix')).toEqual(['fixture-a.json']);
    expect(await run('wcm completion ')).toEqual(['bash', 'fish', 'zsh']);
  });
});
