import { execa } from 'execa';
import { BIN } from './cli.js';

/**
 * The built binary on a real pseudo-terminal: util-linux `script` runs it so stdin and stdout are
 * TTYs and @inquirer/prompts really prompts. Keys are typed once the prompt is on screen.
 */
export function onTerminal(args: string[], env: Record<string, string | undefined>) {
  const command = ['node', BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const proc = execa('script', ['-qfec', command, '/dev/null'], {
    reject: false,
    env: { NO_COLOR: '1', ...env, CI: '', TERM: 'xterm' },
    timeout: 30_000,
  });
  let screen = '';
  // One decoder for the whole stream: a character split across two reads (the `…` of a cut cell)
  // is decoded whole, never as two U+FFFD.
  proc.stdout!.setEncoding('utf8');
  proc.stdout!.on('data', (d: string) => (screen += d));
  return {
    proc,
    screen: () => screen,
    /** Waits until `text` is on screen, then types `keys`. */
    async when(text: string, keys: string) {
      const started = Date.now();
      while (!screen.includes(text)) {
        if (Date.now() - started > 20_000) throw new Error(`never saw ${JSON.stringify(text)} on screen: ${screen}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      proc.stdin!.write(keys);
    },
  };
}
