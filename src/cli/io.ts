import type { Readable } from 'node:stream';
import { CliError, EXIT } from './errors.js';

export interface Writer {
  write(chunk: string): boolean;
}

/** Prompts the CLI may ask (backed by @inquirer/prompts, loaded only when needed). */
export interface Prompter {
  input(o: { message: string; default?: string; validate?: (v: string) => true | string }): Promise<string>;
  password(o: { message: string }): Promise<string>;
  select<T extends string>(o: {
    message: string;
    choices: Array<{ name: string; value: T; description?: string }>;
    default?: T;
  }): Promise<T>;
  confirm(o: { message: string; default?: boolean }): Promise<boolean>;
  /** A choice filtered as the user types (`source` gets the term typed so far). */
  search<T extends string>(o: {
    message: string;
    source: (term: string | undefined) => Promise<Array<{ name: string; value: T; description?: string }>>;
    pageSize?: number;
  }): Promise<T>;
}

/**
 * Every terminal decision in one object (GitHub CLI's iostreams): tests build one with the flags
 * they want instead of faking a terminal.
 */
export interface IO {
  stdout: Writer;
  stderr: Writer;
  stdin: Readable;
  isStdoutTTY: boolean;
  isStderrTTY: boolean;
  isStdinTTY: boolean;
  isCI: boolean;
  /** Colour on stdout/stderr: a TTY, and neither NO_COLOR nor --no-color. */
  color: boolean;
  columns: number;
  /** Prompts only when stdin and stdout are terminals and this is not CI. */
  canPrompt(): boolean;
  prompter(): Promise<Prompter>;
}

export function systemIO(env: NodeJS.ProcessEnv, opts: { noColor?: boolean } = {}): IO {
  const isCI = !!env.CI && env.CI !== 'false' && env.CI !== '0';
  const isStdoutTTY = !!process.stdout.isTTY;
  const io: IO = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    isStdoutTTY,
    isStderrTTY: !!process.stderr.isTTY,
    isStdinTTY: !!process.stdin.isTTY,
    isCI,
    // no-color.org: NO_COLOR set to anything but the empty string turns colour off.
    color: isStdoutTTY && !opts.noColor && !env.NO_COLOR && env.TERM !== 'dumb',
    // The terminal's width; a pseudo-terminal that reports none (0) falls back on COLUMNS, then 100.
    columns: process.stdout.columns || Math.max(0, Math.floor(Number(env.COLUMNS))) || 100,
    canPrompt: () => io.isStdinTTY && io.isStdoutTTY && !io.isCI,
    prompter: async () => {
      const p = await import('@inquirer/prompts');
      // Ctrl+C in a prompt: a short message instead of inquirer's "force closed" error, and exit 130.
      const cancellable = async <T>(ask: () => Promise<T>): Promise<T> => {
        try {
          return await ask();
        } catch (err) {
          if ((err as Error).name === 'ExitPromptError')
            throw new CliError('Cancelled; nothing was changed.', EXIT.interrupted);
          throw err;
        }
      };
      return {
        input: (o) => cancellable(() => p.input(o)),
        // No mask: nothing of the token is echoed, not even its length.
        password: (o) => cancellable(() => p.password(o)),
        select: (o) => cancellable(() => p.select(o) as never),
        confirm: (o) => cancellable(() => p.confirm(o)),
        search: (o) =>
          cancellable(
            () => p.search({ message: o.message, pageSize: o.pageSize, source: (term) => o.source(term) }) as never,
          ),
      };
    },
  };
  return io;
}
