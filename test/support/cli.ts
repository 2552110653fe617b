import { execa, type ResultPromise } from 'execa';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PassThrough, Readable } from 'node:stream';
import type { GlobalFlags } from '../../src/cli/factory.js';
import type { IO, Prompter } from '../../src/cli/io.js';
import { ROOT } from './server.js';

export const BIN = path.join(ROOT, 'bin/wcm.js');

/**
 * The environment that makes a spawned `wcm` resolve names under `.wcm.test` to 127.0.0.1
 * (test/support/far-host.mjs): a stand-in for another host that never leaves loopback.
 */
export const FAR_HOST_ENV = {
  NODE_OPTIONS: `--import ${pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'far-host.mjs')).href}`,
};

/** Runs the built binary like a user would (no TTY), with a private config directory. */
export function wcm(
  args: string[],
  opts: { env?: Record<string, string | undefined>; input?: string; cwd?: string; timeout?: number } = {},
) {
  return execa('node', [BIN, ...args], {
    reject: false,
    input: opts.input,
    cwd: opts.cwd,
    timeout: opts.timeout ?? 20_000,
    env: { NO_COLOR: '1', CI: 'true', ...opts.env },
    extendEnv: true,
  });
}

/** Starts `wcm serve` as a real process and resolves once it printed its first line. */
export async function spawnServe(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string; startMs?: number } = {},
): Promise<{ proc: ResultPromise; url: string; lines: string[]; stderr: () => string }> {
  const proc = execa('node', [BIN, 'serve', '--port', '0', ...args], {
    reject: false,
    cwd: opts.cwd,
    env: { NO_COLOR: '1', CI: 'true', ...opts.env },
    buffer: false,
  });
  const lines: string[] = [];
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const startMs = opts.startMs ?? 15_000;
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(
      () => reject(new Error(`wcm serve did not start in ${startMs} ms: ${lines.join('\n')}\nstderr: ${err}`)),
      startMs,
    );
    proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) !== -1) {
        lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        const m = /^wcm listening on (http:\/\/\S+)$/.exec(lines[lines.length - 1]);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      }
    });
    void proc.then((r) => {
      clearTimeout(timer);
      reject(new Error(`wcm serve exited ${r.exitCode}: ${err}`));
    });
  });
  return { proc, url, lines, stderr: () => err };
}

export interface FakeIO extends IO {
  out(): string;
  err(): string;
}

/** An IO with the terminal flags a test wants, capturing what is written. */
export function fakeIO(
  o: { tty?: boolean; stdin?: string; color?: boolean; prompter?: Partial<Prompter> } = {},
): FakeIO {
  let out = '';
  let err = '';
  const tty = !!o.tty;
  const io: FakeIO = {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: o.stdin !== undefined ? Readable.from([o.stdin]) : new PassThrough(),
    isStdoutTTY: tty,
    isStderrTTY: tty,
    isStdinTTY: tty,
    isCI: false,
    color: !!o.color,
    columns: 120,
    canPrompt: () => tty && !!o.prompter,
    prompter: async () => {
      if (!o.prompter) throw new Error('this test gave no prompter');
      return o.prompter as Prompter;
    },
    out: () => out,
    err: () => err,
  };
  return io;
}

/** Runs the CLI in-process with a fake IO: same parsing and commands, no subprocess. */
export async function runInProcess(
  args: string[],
  opts: { io?: FakeIO; env?: Record<string, string | undefined> } = {},
) {
  // Loaded on first use: files that only spawn the binary need none of the CLI's modules.
  const [{ createFactory }, { main }] = await Promise.all([
    import('../../src/cli/factory.js'),
    import('../../src/cli/main.js'),
  ]);
  const io = opts.io ?? fakeIO();
  const env = { ...opts.env } as NodeJS.ProcessEnv;
  const code = await main(args, { io, env, factory: (g: GlobalFlags, runIO: IO) => createFactory(runIO, env, g) });
  return { code, stdout: io.out(), stderr: io.err() };
}
