// The factory is lazy getters (as gh's cmdutil.Factory): it loads and caches, and each policy lives in
// the module that owns it. Token checks, the keychain, OAuth renewal and opening stores creeping back
// into src/cli/factory.ts fail here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const src = readFileSync(path.join(root, 'src/cli/factory.ts'), 'utf8');

it('src/cli/factory.ts decides nothing: no errors thrown, no keychain, OAuth or store code', () => {
  expect(src).not.toMatch(/\bthrow\b/);
  expect(src).not.toMatch(/from '\.\/errors\.js'/);
  // What it loads, statically or lazily (type-only imports load nothing).
  const loads = [
    ...src.matchAll(/^import (?!type )[^;]*from '([^']+)'/gm),
    ...src.matchAll(/import\('([^']+)'\)/g),
  ].map((m) => m[1]);
  expect(loads.length).toBeGreaterThan(0);
  for (const owner of [
    './errors.js',
    './credentials.js',
    './oauth-login.js',
    '../store/json/store.js',
    '../client/client.js',
    './output.js',
  ])
    expect(loads, `factory.ts loads ${owner}`).not.toContain(owner);
  expect(src).not.toMatch(/expires_at|refresh_token|\bStore\.open/);
});

it('createFactory is about 30 lines of getters', () => {
  const body = src.slice(src.indexOf('export function createFactory'));
  expect(body.split('\n').length).toBeLessThanOrEqual(30);
});
