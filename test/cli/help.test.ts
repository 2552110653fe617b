// Help as gh prints it: the program's flags under "Inherited flags" on every command, and the fields
// `--json a,b` can select under "JSON fields" on every command that prints records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands, groups } from '../../commands/index.js';
import { groupSummaries } from '../../src/cli/command.js';
import { fieldPaths } from '../../src/cli/json-fields.js';
import { getOperation } from '../../src/contract/operations.js';
import { fakeIO, runInProcess, wcm } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

const visible = commands.filter((c) => !c.hidden);

describe('--help', () => {
  it.each(visible.map((c) => [c.path.join(' ')]))(
    'wcm %s --help: an "Inherited flags" section with the global flags',
    async (path) => {
      const r = await runInProcess([...path.split(' '), '--help']);
      expect(r.code).toBe(0);
      const inherited = r.stdout.split('Inherited flags:\n')[1];
      expect(inherited, r.stdout).toBeDefined();
      for (const flag of [
        '--json',
        '--jq <expression>',
        '--base-url <url>',
        '-w, --workspace <id>',
        '--profile <name>',
        '--no-color',
        '--debug',
      ])
        expect(inherited).toContain(flag);
      expect(inherited).not.toContain('--version');
    },
  );

  it("every command group has its help line, written in the group's commands/<group>/index.ts", () => {
    const summaries = groupSummaries(groups);
    const prefixes = new Set(
      visible.flatMap((c) => c.path.slice(0, -1).map((_, i) => c.path.slice(0, i + 1).join(' '))),
    );
    expect([...prefixes].filter((p) => !summaries.has(p))).toEqual([]);
    // A group holds only its own commands: `wcm lists …` is in commands/lists/index.ts.
    for (const g of groups)
      expect(g.commands.filter((c) => c.path[0] !== g.name).map((c) => c.path.join(' '))).toEqual([]);
    expect(new Set(groups.map((g) => g.name)).size).toBe(groups.length);
  });

  const printing = visible.filter((c) => c.output);
  it('every list, show, update and create command says what it prints', () => {
    const verbs = new Set(['ls', 'show', 'update', 'create', 'templates']);
    const missing = visible.filter((c) => (c.list || verbs.has(c.path[c.path.length - 1])) && !c.output);
    expect(missing.map((c) => c.path.join(' '))).toEqual([]);
    expect(printing.length).toBeGreaterThanOrEqual(30);
  });

  it.each(printing.map((c) => [c.path.join(' '), c.output!] as const))(
    'wcm %s --help lists its JSON fields',
    async (path, output) => {
      const r = await runInProcess([...path.split(' '), '--help']);
      const section = r.stdout.split(
        /JSON fields \(`--json a,b\.c` prints only those; `--json` alone prints every field\):\n/,
      )[1];
      expect(section, r.stdout).toBeDefined();
      const listed = section
        .split(/,\s*|\n\s*/)
        .map((s) => s.trim())
        .filter(Boolean);
      const expected = typeof output === 'string' ? fieldPaths(getOperation(output)!.response) : [...output];
      expect(listed).toEqual(expected);
    },
  );

  it('the built binary prints both sections (help loads the contract only when asked)', async () => {
    const r = await wcm(['threads', 'ls', '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/Inherited flags:\n {2}--json/);
    expect(r.stdout).toMatch(/JSON fields .*\n {2}id, contact, contact\.id, contact\.name/);
  });
});

describe('--json fields', () => {
  let server: Awaited<ReturnType<typeof onPort>>;
  let cfg: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await onPort();
    cfg = tempDir('wcm-help-');
    env = { WCM_CONFIG_DIR: cfg.dir, WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 };
  });
  afterAll(async () => {
    await server.close();
    cfg.cleanup();
  });

  it('--json alone prints every field the help lists', async () => {
    const r = await runInProcess(['pages', 'show', demo.pageAcme, '--json'], { env });
    expect(r.code).toBe(0);
    const top = fieldPaths(getOperation('getPage')!.response).filter((p) => !p.includes('.'));
    expect(Object.keys(JSON.parse(r.stdout)).sort()).toEqual(top.sort());
  });

  it('a field that does not exist: plain text on a terminal, the problem as JSON when piped', async () => {
    const tty = await runInProcess(['pages', 'show', demo.pageAcme, '--json', 'id,titel'], {
      env,
      io: fakeIO({ tty: true }),
    });
    expect(tty.code).toBe(2);
    expect(tty.stderr).toMatch(
      /^Error: `titel` is not a field of `getPage` \(in `--json`\)\.\n {2}→ Fields: id, name, slug/,
    );
    const piped = await runInProcess(['pages', 'show', demo.pageAcme, '--json', 'id,titel'], { env });
    expect(piped.code).toBe(2);
    expect(JSON.parse(piped.stderr)).toMatchObject({
      title: 'Usage error',
      detail: expect.stringContaining('`titel` is not a field'),
    });
  });

  it('local records are checked against their own field list', async () => {
    const r = await runInProcess(['profile', 'ls', '--json', 'name,url'], { env, io: fakeIO({ tty: true }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('`url` is not a field of this output (in `--json`).');
    expect(r.stderr).toContain('Fields: name, base_url, workspace, logged_in, current');
  });
});
