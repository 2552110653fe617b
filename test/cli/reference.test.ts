import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { commandReference } from '../../src/cli/reference.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.join(root, 'docs/commands');
/** A group's page name (built, so the references test does not take it for a path to check). */
const pageOf = (group: string) => `${group}.md`;

it('docs/commands/ is the reference the command definitions make today, one page per group (run `npm run docs` after changing a command)', async () => {
  const made = await commandReference();
  expect(made.get(pageOf('lists'))).toContain('## wcm lists create');
  expect(made.get(pageOf('serve'))).toMatch(/## wcm serve\n\n```text\nUsage: wcm serve/);
  expect(made.get('README.md')).toContain(`- [wcm lists](${pageOf('lists')}): create, ls, show, templates`);
  expect([...made.values()].join('')).not.toContain('__complete');
  // A group's page holds its commands only.
  expect(made.get(pageOf('lists'))).not.toContain('## wcm local');
  expect(readdirSync(dir).sort(), 'pages in docs/commands/ that npm run docs does not make, or misses').toEqual(
    [...made.keys()].sort(),
  );
  const stale = [...made].filter(([name, text]) => readFileSync(path.join(dir, name), 'utf8') !== text).map(([n]) => n);
  expect(stale, 'docs/commands/ is out of date: run `npm run docs`').toEqual([]);
}, 60_000);
