// Issue 48, minor: on the project's Node (20), `npm install` warns about no package's `engines`.
// A dry run of npm's install from package.json and package-lock.json alone, in an empty directory,
// makes the same engine checks as a real one, offline and without touching this checkout.
import { execa } from 'execa';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ROOT, tempDir } from '../support/server.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('wcm-npm-engines-')));
afterEach(() => cleanup());

it('npm install from the lockfile prints no EBADENGINE warning on the Node that runs the tests', async () => {
  for (const f of ['package.json', 'package-lock.json']) copyFileSync(path.join(ROOT, f), path.join(dir, f));
  const r = await execa(
    'npm',
    ['install', '--dry-run', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel', 'warn'],
    { cwd: dir, reject: false, all: true, timeout: 120_000 },
  );
  expect(r.exitCode, r.all).toBe(0);
  expect(r.all).not.toContain('EBADENGINE');
  // The two that warned: the Inspector (now fetched by its test) and content-type 3 under the
  // conformance suite's @octokit/request (overridden to a release that uses content-type 2).
  expect(r.all).not.toMatch(/@modelcontextprotocol\/inspector@|content-type@3/);
}, 150_000);
