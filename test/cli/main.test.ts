import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.js';
import { systemIO } from '../../src/cli/io.js';
import { ROOT, tempDir } from '../support/server.js';
import { runInProcess } from '../support/cli.js';

describe('main', () => {
  it('--version prints the package version', async () => {
    const r = await runInProcess(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('--help lists the command groups and the exit codes', async () => {
    const r = await runInProcess(['--help']);
    expect(r.code).toBe(0);
    for (const word of ['auth', 'profile', 'lists', 'api', 'openapi', 'Exit codes: 0 ok, 1 failure, 2 usage'])
      expect(r.stdout).toContain(word);
  });

  it.each([
    [['lists', 'ls', '--bogus'], "unknown option '--bogus'"],
    [['qqqqqq'], "unknown command 'qqqqqq'"],
    [['profile', 'use'], "missing required argument 'profile'"],
  ])('usage error %j: exit 2, plain text; with --json one JSON object', async (args, message) => {
    const d = tempDir();
    try {
      const env = { WCM_CONFIG_DIR: d.dir };
      const text = await runInProcess(args, { env });
      expect(text.code).toBe(2);
      expect(text.stderr).toContain(message);
      const json = await runInProcess(['--json', ...args], { env });
      expect(json.code).toBe(2);
      expect(json.stdout).toBe('');
      expect(JSON.parse(json.stderr)).toEqual({
        title: 'Usage error',
        code: 'usage_error',
        detail: message,
        resolution: 'Run with --help for usage.',
        errors: {},
      });
    } finally {
      d.cleanup();
    }
  });
  it.each([
    [
      ['pages', 'ls', '--published', 'false'],
      '`--published` is a switch and takes no value, so `false` was read as an argument: drop `false`; for the opposite use `--unpublished`.',
    ],
    [
      ['pages', 'ls', '--unpublished', 'no'],
      '`--unpublished` is a switch and takes no value, so `no` was read as an argument: drop `no`; for the opposite use `--published`.',
    ],
    [
      ['lists', 'ls', '--all', 'yes'],
      '`--all` is a switch and takes no value, so `yes` was read as an argument: drop `yes`.',
    ],
  ])(
    'a value after a switch (%j) says the switch takes none: exit 2, the hint in text and JSON',
    async (args, hint) => {
      const text = await runInProcess(args);
      expect(text.code).toBe(2);
      expect(text.stderr).toContain("too many arguments for 'ls'");
      expect(text.stderr).toContain(hint);
      const json = await runInProcess(['--json', ...args]);
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stderr)).toMatchObject({ code: 'usage_error', resolution: hint });
    },
  );

  it('an extra argument after no switch gets no switch hint', async () => {
    const r = await runInProcess(['threads', 'ls', 'extra']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("too many arguments for 'ls'");
    expect(r.stderr).not.toContain('is a switch');
  });
});

describe('commands', () => {
  // main loads only the named command from commands/<path>.js (falling back to all of them when
  // it is elsewhere), so a command kept anywhere else would still work, only start slower.
  it.each(commands.map((c) => [c.path.join(' '), c.path] as const))(
    '`wcm %s` lives in commands/<path>.ts',
    (_name, p) => {
      expect(existsSync(path.join(ROOT, 'commands', ...p) + '.ts')).toBe(true);
    },
  );
});

describe('systemIO', () => {
  it.each([
    [{ CI: 'true' }, true],
    [{ CI: '1' }, true],
    [{ CI: 'false' }, false],
    [{ CI: '0' }, false],
    [{}, false],
  ])('CI=%j → isCI %s; no prompts in CI or without terminals', (env, isCI) => {
    const io = systemIO(env as NodeJS.ProcessEnv);
    expect(io.isCI).toBe(isCI);
    if (isCI) expect(io.canPrompt()).toBe(false);
    // Under the test runner stdin/stdout are not terminals: never prompt, never colour.
    expect(io.canPrompt()).toBe(false);
    expect(io.color).toBe(false);
  });
});
