// Issue 48, major 3: `npm start` builds only when the sources changed (bin/build-if-stale.mjs),
// so on a built checkout it starts the server without running tsc; a changed source rebuilds.
import { execa } from 'execa';
import { mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ROOT, tempDir } from '../support/server.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('wcm-npm-start-')));
afterEach(() => cleanup());

it('on a built checkout, npm start serves without running tsc and leaves dist/ untouched', async () => {
  // A fresh build first (nothing to do when `npm test` has just built).
  const fresh = await execa('node', ['bin/build-if-stale.mjs'], { cwd: ROOT, reject: false, timeout: 120_000 });
  expect(fresh.exitCode, fresh.stderr).toBe(0);
  const stamp = path.join(ROOT, 'dist', '.sources.sha256');
  const main = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');
  const before = [statSync(stamp).mtimeMs, statSync(main).mtimeMs];

  const proc = execa('npm', ['start', '--', '--port', '0', '--data', path.join(dir, 'store.json')], {
    cwd: ROOT,
    reject: false,
    buffer: false,
    detached: true,
    env: { WCM_CONFIG_DIR: path.join(dir, 'config'), NO_COLOR: '1', CI: 'true' },
  });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      void proc.then((r) => reject(new Error(`npm start exited ${r.exitCode}: ${err}`)));
      const timer = setTimeout(() => reject(new Error(`npm start did not answer: ${out}${err}`)), 20_000);
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^wcm listening on \S+$/m.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[0]);
        }
      });
    });
    expect(line).toMatch(/^wcm listening on http:\/\/127\.0\.0\.1:\d+\/v1$/);
  } finally {
    process.kill(-proc.pid!, 'SIGTERM');
    await proc;
  }
  // npm echoes each command it runs: the check ran, tsc did not.
  expect(out).toContain('node bin/build-if-stale.mjs && node bin/wcm.js serve');
  expect(`${out}${err}`).not.toMatch(/building|tsc -p/);
  expect([statSync(stamp).mtimeMs, statSync(main).mtimeMs]).toEqual(before);
}, 150_000);

it('in a checkout, npm start builds when nothing is built, not again when nothing changed, and again after a source changed', async () => {
  // A small project of the same layout, with the real script and the real TypeScript.
  mkdirSync(path.join(dir, 'bin'));
  mkdirSync(path.join(dir, 'src', 'cli'), { recursive: true });
  mkdirSync(path.join(dir, 'commands'));
  copyFileSync(path.join(ROOT, 'bin', 'build-if-stale.mjs'), path.join(dir, 'bin', 'build-if-stale.mjs'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'p',
      type: 'module',
      scripts: { start: 'node bin/build-if-stale.mjs && node dist/src/cli/main.js' },
    }),
  );
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { module: 'NodeNext', target: 'ES2022', outDir: 'dist', rootDir: '.', types: [] },
      include: ['src/**/*.ts', 'commands/**/*.ts'],
    }),
  );
  const source = path.join(dir, 'src', 'cli', 'main.ts');
  writeFileSync(source, "console.log('one');\n");
  writeFileSync(path.join(dir, 'commands', 'x.ts'), 'export const x = 1;\n');
  const start = () => execa('npm', ['start'], { cwd: dir, reject: false, timeout: 120_000 });
  const built = path.join(dir, 'dist', 'src', 'cli', 'main.js');

  const first = await start();
  expect(first.exitCode, first.stderr).toBe(0);
  expect(first.stderr).toContain('wcm: not built yet: building (tsc)');
  expect(first.stdout.trim().split('\n').at(-1)).toBe('one');

  const mtime = statSync(built).mtimeMs;
  // Touched but not changed (a `git checkout`): no build.
  utimesSync(source, new Date(), new Date(Date.now() + 5000));
  const second = await start();
  expect(second.exitCode, second.stderr).toBe(0);
  expect(second.stderr).not.toContain('building');
  expect(statSync(built).mtimeMs).toBe(mtime);

  writeFileSync(source, "console.log('two');\n");
  const third = await start();
  expect(third.exitCode, third.stderr).toBe(0);
  expect(third.stderr).toContain('wcm: the sources changed since the last build: building (tsc)');
  expect(third.stdout.trim().split('\n').at(-1)).toBe('two');
  expect(readFileSync(built, 'utf8')).toContain("'two'");
}, 150_000);

it('unbuilt, the binary says to run `npm run build` (npm install does not build)', async () => {
  mkdirSync(path.join(dir, 'bin'));
  for (const f of ['wcm.js', 'package.json']) copyFileSync(path.join(ROOT, 'bin', f), path.join(dir, 'bin', f));
  const r = await execa('node', [path.join(dir, 'bin', 'wcm.js'), 'lists', 'ls'], { reject: false });
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toContain('wcm is not built: run `npm run build` in the wcm directory first');
  expect(r.stderr).not.toContain('npm install');
});
