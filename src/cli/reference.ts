import { writeFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { allCommands } from './command-table.js';
import type { IO } from './io.js';
import { main } from './main.js';

/** One command's `--help`, exactly as a terminal shows it (80 columns, no colour). */
async function helpOf(words: string[]): Promise<string> {
  let out = '';
  const io: IO = {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: () => true },
    stdin: new PassThrough(),
    isStdoutTTY: false,
    isStderrTTY: false,
    isStdinTTY: false,
    isCI: true,
    color: false,
    columns: 80,
    canPrompt: () => false,
    prompter: () => Promise.reject(new Error('no prompts while writing the reference')),
  };
  await main([...words, '--help'], { io, env: {} });
  return out.trimEnd();
}

/**
 * The command reference (`npm run docs` writes it to docs/commands.md), made from the command
 * definitions through the same help a terminal shows, as gh's gen-docs does: one section per
 * command, so the reference never says something `--help` does not. A test checks it is current.
 */
export async function commandReference(): Promise<string> {
  const top = await helpOf([]);
  const defs = [...(await allCommands())]
    .filter((d) => !d.hidden)
    .sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' ')));
  const parts = [
    '# Command reference',
    '',
    'Generated from the command definitions by `npm run docs`; do not edit by hand.',
    '',
    '```text',
    top,
    '```',
  ];
  for (const def of defs) parts.push('', `## wcm ${def.path.join(' ')}`, '', '```text', await helpOf(def.path), '```');
  return `${parts.join('\n')}\n`;
}

export async function writeCommandReference(file: string): Promise<void> {
  await writeFile(file, await commandReference());
}
