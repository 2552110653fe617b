import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { commandReference } from '../../src/cli/reference.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

it('docs/commands.md is the reference the command definitions make today (run `npm run docs` after changing a command)', async () => {
  const made = await commandReference();
  expect(made).toContain('## wcm lists create');
  expect(made).toMatch(/## wcm serve\n\n```text\nUsage: wcm serve/);
  expect(made).not.toContain('__complete');
  expect(
    readFileSync(path.join(root, 'docs/commands.md'), 'utf8') === made,
    'docs/commands.md is out of date: run `npm run docs`',
  ).toBe(true);
}, 60_000);
