import type { CommandDef } from './command.js';

/**
 * The command table (commands/index.ts), for the one command that lists the others (`wcm
 * completion`). main.ts hands the loader in, so nothing below main imports commands/.
 */
let loader: (() => Promise<readonly CommandDef[]>) | null = null;

export function provideCommands(load: () => Promise<readonly CommandDef[]>): void {
  loader = load;
}

export function allCommands(): Promise<readonly CommandDef[]> {
  if (!loader) return Promise.reject(new Error('The command table was not provided (main.ts provides it).'));
  return loader();
}
