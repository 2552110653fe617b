// The package as a user gets it (docs/server.md#in-a-test-runner-import--startserver--from-wcm): `npm pack`, installed globally into a temp prefix (issue 37 item
// 15: no build step on the user's side; dist ships in the tarball, `prepack` builds it, `prepare` is not needed), from
// the npm cache where it can (the registry only for what the cache lacks); then an empty project that depends on it
// (`npm link wcm`: the same installed files, not a second extraction of its ~150 dependencies, 8-16 s of CPU) runs
// `npx wcm serve` and `import { startServer } from 'wcm'` with no build step, and its types compile.
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa, type Result } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demo, ROOT, tempDir } from '../support/server.js';

let dir: ReturnType<typeof tempDir>;
let project: string;
let prefix: string;
/** The tarball's files, as `npm pack --json` lists them. */
let packed: string[];
let globalInstall: Result;
beforeAll(async () => {
  dir = tempDir('wcm-pack-');
  // dist/ is built by `npm test` before the tests run: pack it as it is (no second build).
  const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir.dir], { cwd: ROOT });
  expect(pack.exitCode).toBe(0);
  packed = JSON.parse(pack.stdout)[0].files.map((f: { path: string }) => f.path);
  const tarball = path.join(
    dir.dir,
    readdirSync(dir.dir).find((f) => f.endsWith('.tgz'))!,
  );
  prefix = path.join(dir.dir, 'prefix');
  globalInstall = await execa(
    'npm',
    ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
    { reject: false, env: { npm_config_cache: process.env.npm_config_cache } },
  );
  expect(globalInstall.exitCode, String(globalInstall.stderr)).toBe(0);
  project = path.join(dir.dir, 'project');
  mkdirSync(project);
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'uses-wcm', version: '1.0.0', type: 'module', private: true }),
  );
  // npm_config_prefix (not --prefix, which would also move the project) says where the global wcm is.
  const link = await execa('npm', ['link', '--no-audit', '--no-fund', 'wcm'], {
    cwd: project,
    reject: false,
    env: { npm_config_prefix: prefix },
  });
  expect(link.exitCode, link.stderr).toBe(0);
  expect(realpathSync(path.join(project, 'node_modules/wcm'))).toBe(
    realpathSync(path.join(prefix, 'lib/node_modules/wcm')),
  );
}, 240_000);
afterAll(() => dir?.cleanup());

it('npx wcm serve runs from the installed package and serves the demo data', async () => {
  const serve = execa(
    'npx',
    [
      '--no-install',
      'wcm',
      'serve',
      '--port',
      '0',
      '--seed',
      'node_modules/wcm/fixtures/demo.json',
      '--data',
      path.join(project, 'store.json'),
    ],
    {
      cwd: project,
      reject: false,
      env: { WCM_CONFIG_DIR: path.join(project, '.config'), CI: 'true' },
      buffer: false,
      detached: true,
    },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      serve.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /wcm listening on (\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      void serve.then((r) => reject(new Error(`serve exited: ${r.exitCode}`)));
    });
    const me = await fetch(`${url}/me`, { headers: { authorization: `Bearer ${demo.owner}` } });
    expect(me.status).toBe(200);
  } finally {
    // npx runs the binary as a child: stop the whole group.
    process.kill(-serve.pid!, 'SIGTERM');
    await serve;
  }
}, 60_000);

it('import { startServer } from "wcm": seed, call, reset, snapshot, read the log, close; the types compile', async () => {
  writeFileSync(
    path.join(project, 'run.ts'),
    `import { startServer, type StartedServer } from 'wcm';
const server: StartedServer = await startServer({ seed: ['node_modules/wcm/fixtures/demo.json'] });
const lists = await fetch(server.baseUrl + '/workspaces/' + server.workspace + '/lists', { headers: { authorization: 'Bearer ' + server.token } });
await fetch(server.baseUrl + '/workspaces/' + server.workspace + '/lists', { method: 'POST', headers: { authorization: 'Bearer ' + server.token, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'x', template_slug: 'faq' }) });
await server.snapshot('after-create');
const emptied = await server.reset();
const seeded = await server.reset('seed');
const log = await server.requests({ operation: 'createListing' });
await server.close();
console.log(JSON.stringify({ lists: lists.status, emptied, threads: seeded.threads, logged: log.map((e) => e.status) }));
`,
  );
  // run.ts and the package's own declarations are type-checked (an import in them that does not
  // resolve for a user, a type that does not fit, a wrong use of the API); the declarations of its
  // dependencies (zod's, node's: 95% of the ~20 s of CPU a plain tsc spent here) and TypeScript's own
  // lib.*.d.ts are read for the types they give, not checked themselves. tsc's --skipLibCheck would
  // not do: it also skips the package's declarations.
  const types = await execa(
    process.execPath,
    ['--input-type=module', '-e', CHECK_TYPES, path.join(ROOT, 'node_modules')],
    {
      cwd: project,
      reject: false,
    },
  );
  expect(types.exitCode, types.stdout + types.stderr).toBe(0);
  const { checked, errors } = JSON.parse(types.stdout) as { checked: string[]; errors: string };
  expect(errors).toBe('');
  expect(checked).toContain('run.ts');
  expect(checked).toContain('node_modules/wcm/dist/src/index.d.ts');
  expect(checked.filter((f) => !/^node_modules\/wcm\/dist\/src\/.*\.d\.ts$/.test(f))).toEqual(['run.ts']);
  writeFileSync(
    path.join(project, 'run.mjs'),
    (await import('node:fs'))
      .readFileSync(path.join(project, 'run.ts'), 'utf8')
      .replace(', type StartedServer', '')
      .replace(': StartedServer', ''),
  );
  const r = await execa(process.execPath, ['run.mjs'], { cwd: project, reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
  // The seed's threads: as many as the demo fixture holds.
  const demoThreads = (
    JSON.parse(readFileSync(path.join(ROOT, 'fixtures/demo.json'), 'utf8')) as { threads: unknown[] }
  ).threads.length;
  expect(JSON.parse(r.stdout)).toEqual({ lists: 200, emptied: {}, threads: demoThreads, logged: [201] });
}, 180_000);

it('the tarball holds every page its README and docs link to, and no source maps (issue 48)', () => {
  // 338 .map files were packed, and none of docs/: the README's links led nowhere in the package.
  expect(packed.filter((f) => f.endsWith('.map'))).toEqual([]);
  expect(packed).toContain('docs/fixtures.md');
  const installed = path.join(prefix, 'lib/node_modules/wcm');
  const pages = packed.filter((f) => f.endsWith('.md'));
  const broken: string[] = [];
  for (const page of pages) {
    const text = readFileSync(path.join(installed, page), 'utf8');
    for (const m of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/i.test(target)) continue;
      const file = path.posix.normalize(path.posix.join(path.posix.dirname(page), target));
      if (!packed.includes(file) && !packed.some((f) => f.startsWith(`${file.replace(/\/$/, '')}/`)))
        broken.push(`${page} → ${target}`);
    }
  }
  expect(broken).toEqual([]);
});

it('npm pack, then npm i -g <tarball> into a temp prefix: `wcm --version` and `wcm --help` run', async () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  expect(pkg.private).toBeUndefined();
  expect(pkg.scripts.prepack).toBe('npm run build');
  expect(pkg.scripts.prepare).toBeUndefined();
  expect(packed).toContain('dist/src/cli/main.js');
  expect(packed).toContain('bin/wcm.js');
  expect(globalInstall.stderr).not.toMatch(/prepare|install-scripts/);
  const bin = path.join(prefix, 'bin', 'wcm');
  const version = await execa(bin, ['--version'], { reject: false });
  expect(version.exitCode, version.stderr).toBe(0);
  expect(version.stdout.trim()).toBe(pkg.version);
  const help = await execa(bin, ['--help'], { reject: false, env: { NO_COLOR: '1' } });
  expect(help.exitCode, help.stderr).toBe(0);
  expect(help.stdout).toContain('serve');
}, 60_000);

/**
 * Type-checks run.ts with TypeScript's API (argv[1]: the node_modules holding typescript and
 * @types/node), as tsc would with these options, and reports the problems in run.ts and in the
 * package's declarations only (not in those of its dependencies, installed under it). Prints
 * {checked, errors}.
 */
const CHECK_TYPES = `
import path from 'node:path';
const modules = process.argv[1];
const WCM = '/node_modules/wcm/';
const { default: ts } = await import(path.join(modules, 'typescript/lib/typescript.js'));
const program = ts.createProgram([path.resolve('run.ts')], {
  noEmit: true,
  strict: true,
  skipDefaultLibCheck: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  types: ['node'],
  typeRoots: [path.join(modules, '@types')],
});
const ours = program
  .getSourceFiles()
  .filter((f) => !f.fileName.includes('/node_modules/') || f.fileName.slice(f.fileName.lastIndexOf('/node_modules/')).startsWith(WCM));
const diagnostics = [
  ...program.getOptionsDiagnostics(),
  ...program.getGlobalDiagnostics(),
  ...ours.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
];
const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\\n' };
const checked = ours.map((f) =>
  f.fileName.includes(WCM) ? f.fileName.slice(f.fileName.lastIndexOf(WCM) + 1) : path.relative(process.cwd(), f.fileName),
);
process.stdout.write(JSON.stringify({ checked, errors: ts.formatDiagnostics(diagnostics, host) }));
process.exitCode = diagnostics.length ? 1 : 0;
`;
