import type { Readable } from 'node:stream';

export interface Writer {
  write(chunk: string): boolean;
}

/** Prompts the CLI may ask (backed by @inquirer/prompts, loaded only when needed). */
export interface Prompter {
  input(o: { message: string; default?: string; validate?: (v: string) => true | string }): Promise<string>;
  password(o: { message: string }): Promise<string>;
  select<T extends string>(o: { message: string; choices: Array<{ name: string; value: T; description?: string }>; default?: T }): Promise<T>;
  confirm(o: { message: string; default?: boolean }): Promise<boolean>;
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
    columns: process.stdout.columns || 100,
    canPrompt: () => io.isStdinTTY && io.isStdoutTTY && !io.isCI,
    prompter: async () => {
      const p = await import('@inquirer/prompts');
      return {
        input: (o) => p.input(o),
        password: (o) => p.password({ ...o, mask: '*' }),
        select: (o) => p.select(o) as never,
        confirm: (o) => p.confirm(o),
      };
    },
  };
  return io;
}
