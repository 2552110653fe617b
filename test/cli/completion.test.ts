// `wcm completion bash` completes in a real bash (COMP_WORDS/COMP_CWORD and the generated function),
// from the command table: subcommands, flags, flag values, and ids from the target.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runInProcess } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

let dir: ReturnType<typeof tempDir>;
let script: string;
let server: Awaited<ReturnType<typeof onPort>>;
beforeAll(async () => {
  dir = tempDir('wcm-completion-');
  const r = await runInProcess(['completion', 'bash']);
  expect(r.code).toBe(0);
  script = path.join(dir.dir, 'wcm.bash');
  writeFileSync(script, r.stdout);
  // `wcm` on PATH for the script's id lookups: the built binary.
  mkdirSync(path.join(dir.dir, 'bin'));
  writeFileSync(path.join(dir.dir, 'bin', 'wcm'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(path.join(dir.dir, 'bin', 'wcm'), 0o755);
  server = await onPort();
});
afterAll(async () => {
  await server.close();
  dir.cleanup();
});

/** What bash offers for the line (the cursor at its end). */
async function complete(line: string, env: Record<string, string> = {}): Promise<string[]> {
  const words = line.split(' ');
  const arr = words.map((w) => `'${w}'`).join(' ');
  const r = await execa('bash', ['-c', `source '${script}'; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _wcm; printf '%s\\n' "\${COMPREPLY[@]}"`], {
    env: { PATH: `${path.join(dir.dir, 'bin')}:${process.env.PATH}`, WCM_CONFIG_DIR: dir.dir, ...env },
    reject: false,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean).sort();
}

describe('bash completion', () => {
  it.each<[string, string[]]>([
    ['wcm thr', ['threads']],
    ['wcm threads ', ['ls', 'show']],
    ['wcm oauth apps ', ['create', 'ls', 'rm']],
    ['wcm local snapshot r', ['restore', 'rm']],
    ['wcm threads ls --vi', ['--view']],
    ['wcm threads ls --view ', ['closed', 'inbox', 'starred', 'unread']],
    ['wcm threads ls --channel w', ['web_chat', 'whatsapp']],
    ['wcm voice ls --kind ', ['call', 'voice_message']],
    ['wcm serve --payments ', ['local', 'stripe']],
    ['wcm lists ls --a', ['--all']],
    ['wcm completion --j', ['--json']],
  ])('%j → %j', async (line, expected) => {
    expect(await complete(line)).toEqual(expected);
  });

  it('offers the ids of the target (forms of the workspace) for an id argument', async () => {
    const forms = [...server.store.values('forms')].filter((f) => f.workspace_id === demo.ws1).map((f) => f.id).sort();
    const got = await complete('wcm forms show ', { WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 });
    expect(got).toEqual(forms);
  });

  it('offers nothing, quickly and silently, when the target cannot be reached', async () => {
    const started = Date.now();
    expect(await complete('wcm forms show ', { WCM_BASE_URL: 'http://127.0.0.1:9/v1', WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 })).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('zsh and fish scripts come from the same table; an unknown shell is exit 2', async () => {
    const zsh = await runInProcess(['completion', 'zsh']);
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain("'threads ls|--view') echo 'inbox unread starred closed'");
    const fish = await runInProcess(['completion', 'fish']);
    expect(fish.stdout).toContain("complete -c wcm -n '__fish_seen_subcommand_from ls' -l view -x -a 'inbox unread starred closed'");
    const bad = await runInProcess(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('bash, zsh, fish');
  });
});
