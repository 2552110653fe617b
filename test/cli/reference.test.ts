import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { commands } from '../../commands/index.js';
import { commandReference } from '../../src/cli/reference.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.join(root, 'docs/commands');
/** A group's page name (built, so the references test does not take it for a path to check). */
const pageOf = (group: string) => `${group}.md`;

it('docs/commands/ is the reference the command definitions make today, one page per group (run `npm run docs` after changing a command)', async () => {
  const made = await commandReference();
  // What to expect is read from the command definitions, so a new command needs no edit here, and
  // the reference fails this test when it leaves one out.
  const visible = commands.filter((c) => !c.hidden);
  const byGroup = new Map<string, typeof visible>();
  for (const c of visible) byGroup.set(c.path[0]!, [...(byGroup.get(c.path[0]!) ?? []), c]);
  expect(byGroup.size).toBeGreaterThanOrEqual(20);
  for (const [group, members] of byGroup) {
    const page = made.get(pageOf(group)) ?? '';
    const verbs = members
      .map((c) => c.path.slice(1).join(' '))
      .filter(Boolean)
      .sort((a, b) => a.localeCompare(b));
    expect(made.get('README.md')).toContain(
      `- [wcm ${group}](${pageOf(group)})${verbs.length ? `: ${verbs.join(', ')}` : ''}\n`,
    );
    for (const c of members) {
      const name = c.path.join(' ');
      const section = page.split(`## wcm ${name}\n\n\`\`\`text\n`)[1]?.split('\n```')[0];
      expect(section, `the section of wcm ${name} in ${pageOf(group)}`).toMatch(new RegExp(`^Usage: wcm ${name}[ |]`));
      if (c.list) expect(section, `wcm ${name} is a list command`).toContain('--limit <n>');
      if (c.args?.some((a) => a.pick))
        expect(made.get('README.md')!.split('## Commands with id pickers')[1], `wcm ${name} has a picker`).toContain(
          `- [wcm ${name}](${pageOf(group)}): `,
        );
    }
    // A group's page holds its commands only.
    expect(new Set([...page.matchAll(/^## wcm (\S+)/gm)].map((m) => m[1]))).toEqual(new Set([group]));
  }
  expect([...made.values()].join('')).not.toContain('__complete');
  expect(readdirSync(dir).sort(), 'pages in docs/commands/ that npm run docs does not make, or misses').toEqual(
    [...made.keys()].sort(),
  );
  const stale = [...made].filter(([name, text]) => readFileSync(path.join(dir, name), 'utf8') !== text).map(([n]) => n);
  expect(stale, 'docs/commands/ is out of date: run `npm run docs`').toEqual([]);
}, 60_000);
