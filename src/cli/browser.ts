import { spawn } from 'node:child_process';
import type { IO } from './io.js';

/** The dashboard's address for a target's base URL: `{origin}/dashboard` (as the server builds `dashboard_url`). */
export function dashboardBase(baseUrl: string): string {
  return `${new URL(baseUrl).origin}/dashboard`;
}

/** The command that opens a URL here: `$BROWSER`, else the platform's opener. */
function opener(url: string, env: NodeJS.ProcessEnv): [string, string[]] {
  if (env.BROWSER) return [env.BROWSER, [url]];
  if (process.platform === 'darwin') return ['open', [url]];
  // `start` is a cmd built-in; its first quoted argument is a window title, hence the empty one.
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""', url]];
  return ['xdg-open', [url]];
}

/**
 * Opens `url` in the user's browser (`gh … --web` style), or prints it: piped, or with
 * `BROWSER=none`, stdout gets the URL alone so scripts can use it. When no opener can be started,
 * the URL is printed too. Resolves once the opener started (or failed to).
 */
export async function openInBrowser(url: string, io: IO, env: NodeJS.ProcessEnv): Promise<void> {
  if (!io.isStdoutTTY || env.BROWSER === 'none') {
    io.stdout.write(`${url}\n`);
    return;
  }
  const [cmd, args] = opener(url, env);
  const started = await new Promise<boolean>((resolve) => {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
  if (started) io.stderr.write(`Opening ${url} in your browser.\n`);
  else {
    io.stderr.write(`Could not start \`${cmd}\` to open a browser; open this address yourself:\n`);
    io.stdout.write(`${url}\n`);
  }
}
