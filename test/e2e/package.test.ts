// The package as a user gets it (EMULATOR.md §3): `npm pack`, installed into an empty project (from the npm cache where it can:
// the registry only for what the cache lacks), then `npx wcm serve` and `import { startServer } from 'wcm'` with no
// build step; the bundled types compile. And (issue 37 item 15) the same tarball installs globally and runs, with no
// build step on the user's side (dist ships in the tarball; `prepack` builds it, `prepare` is not needed).
// One `npm pack` for both installs.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demo, ROOT, tempDir } from '../support/server.js';

let dir: ReturnType<typeof tempDir>;
let project: string;
let tarball: string;
/** The tarball's files, as `npm pack --json` lists them. */
let packed: string[];
beforeAll(async () => {
  dir = tempDir('wcm-pack-');
  // dist/ is built by `npm test` before the tests run: pack it as it is (no second build).
  const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir.dir], { cwd: ROOT });
  expect(pack.exitCode).toBe(0);
  packed = JSON.parse(pack.stdout)[0].files.map((f: { path: string }) => f.path);
  tarball = path.join(
    dir.dir,
    readdirSync(dir.dir).find((f) => f.endsWith('.tgz'))!,
  );
  project = path.join(dir.dir, 'project');
  mkdirSync(project);
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'uses-wcm', version: '1.0.0', type: 'module', private: true }),
  );
  const install = await execa('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    cwd: project,
    reject: false,
  });
  expect(install.exitCode, install.stderr).toBe(0);
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
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const types = await execa(
    process.execPath,
    [
      tsc,
      '--noEmit',
      '--strict',
      // The package's types and their dependencies' are checked; TypeScript's own lib.*.d.ts (the
      // default lib for es2022 includes lib.dom) are not: a quarter of the time, and not this test's subject.
      '--skipDefaultLibCheck',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      'node',
      '--typeRoots',
      path.join(ROOT, 'node_modules/@types'),
      'run.ts',
    ],
    { cwd: project, reject: false },
  );
  expect(types.exitCode, types.stdout + types.stderr).toBe(0);
  writeFileSync(
    path.join(project, 'run.mjs'),
    (await import('node:fs'))
      .readFileSync(path.join(project, 'run.ts'), 'utf8')
      .replace(', type StartedServer', '')
      .replace(': StartedServer', ''),
  );
  const r = await execa(process.execPath, ['run.mjs'], { cwd: project, reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual({ lists: 200, emptied: {}, threads: 46, logged: [201] });
  // tsc checks the package's types with their dependencies' (zod's, node's): ~14 s of CPU, over a
  // minute on a loaded 2-core host.
}, 180_000);

it('npm pack, then npm i -g <tarball> into a temp prefix: `wcm --version` and `wcm --help` run', async () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  expect(pkg.private).toBeUndefined();
  expect(pkg.scripts.prepack).toBe('npm run build');
  expect(pkg.scripts.prepare).toBeUndefined();
  expect(packed).toContain('dist/src/cli/main.js');
  expect(packed).toContain('bin/wcm.js');
  const prefix = path.join(dir.dir, 'prefix');
  const install = await execa(
    'npm',
    ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
    { reject: false, env: { npm_config_cache: process.env.npm_config_cache } },
  );
  expect(install.exitCode, install.stderr).toBe(0);
  expect(install.stderr).not.toMatch(/prepare|install-scripts/);
  const bin = path.join(prefix, 'bin', 'wcm');
  const version = await execa(bin, ['--version'], { reject: false });
  expect(version.exitCode, version.stderr).toBe(0);
  expect(version.stdout.trim()).toBe(pkg.version);
  const help = await execa(bin, ['--help'], { reject: false, env: { NO_COLOR: '1' } });
  expect(help.exitCode, help.stderr).toBe(0);
  expect(help.stdout).toContain('serve');
}, 240_000);
