// Issue 37 item 15: the package installs globally from its tarball and runs, with no build step
// on the user's side (dist ships in the tarball; `prepack` builds it, `prepare` is not needed).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, expect, it } from 'vitest';
import { ROOT, tempDir } from '../support/server.js';

const dir = tempDir('wcm-global-');
afterAll(() => dir.cleanup());

it('npm pack, then npm i -g <tarball> into a temp prefix: `wcm --version` and `wcm --help` run', async () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  expect(pkg.private).toBeUndefined();
  expect(pkg.scripts.prepack).toBe('npm run build');
  expect(pkg.scripts.prepare).toBeUndefined();
  // dist/ is built before the tests run: pack it as it is (no second build).
  const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir.dir], { cwd: ROOT });
  const files: string[] = JSON.parse(pack.stdout)[0].files.map((f: { path: string }) => f.path);
  expect(files).toContain('dist/src/cli/main.js');
  expect(files).toContain('bin/wcm.js');
  const tarball = path.join(
    dir.dir,
    readdirSync(dir.dir).find((f) => f.endsWith('.tgz'))!,
  );
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
