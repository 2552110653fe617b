#!/usr/bin/env node
// `npm start` and `npm run sandbox` run this first: it builds (`tsc -p tsconfig.json`) only when the
// sources differ from those of the last build, so a start with nothing changed costs a few
// milliseconds, not tsc's 20-odd seconds. "The sources" are the TypeScript files the build compiles
// (src/, commands/) and tsconfig.json; their SHA-256, file by file, is kept in dist/.sources.sha256
// after each build (`npm run build` records it too: `--record`). Content, not modification times,
// so a `git checkout` that touches files without changing them does not rebuild.
//   node bin/build-if-stale.mjs           build if needed
//   node bin/build-if-stale.mjs --record  only record the sources of the build just made
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const stampFile = path.join(root, 'dist', '.sources.sha256');

function sourcesDigest() {
  const files = ['tsconfig.json'];
  const walk = (dir) => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.ts')) files.push(rel);
    }
  };
  walk('src');
  walk('commands');
  const h = createHash('sha256');
  for (const f of files.sort())
    h.update(`${f}\0`)
      .update(readFileSync(path.join(root, f)))
      .update('\0');
  return h.digest('hex');
}

const record = () => writeFileSync(stampFile, `${sourcesDigest()}\n`);

if (process.argv.includes('--record')) {
  record();
} else {
  const built = existsSync(path.join(root, 'dist', 'src', 'cli', 'main.js'));
  const stamp = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : '';
  if (!built || stamp !== sourcesDigest()) {
    process.stderr.write(
      built
        ? 'wcm: the sources changed since the last build: building (tsc)…\n'
        : 'wcm: not built yet: building (tsc)…\n',
    );
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
    if (r.status !== 0) {
      process.stderr.write('wcm: the build failed (above); nothing was started.\n');
      process.exit(r.status ?? 1);
    }
    record();
  }
}
