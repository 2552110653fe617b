import { spawn } from 'node:child_process';
import { CliError, EXIT } from './errors.js';
import type { IO } from './io.js';
import { terminalText } from './output.js';

/** The dashboard's address for a target's base URL: `{origin}/dashboard` (as the server builds `dashboard_url`). */
export function dashboardBase(baseUrl: string): string {
  return `${new URL(baseUrl).origin}/dashboard`;
}

/**
 * `url` if the opener may take it (TRUST §6): an http: or https: address on the origin of the
 * server the profile targets. An address a server sent (a `dashboard_url`, an authorization
 * endpoint) could otherwise make the CLI open `file:///etc/passwd` or another site.
 */
export function openable(url: string, baseUrl: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  const origin = new URL(baseUrl).origin;
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== origin) {
    throw new CliError(
      `Not opening \`${terminalText(url)}\`: the browser is only sent to http(s) addresses on ${origin}, the server this profile targets.`,
      EXIT.failure,
      `If the server's address changed, log in to it again (\`wcm auth login --base-url URL\`).`,
    );
  }
  return parsed.href;
}

/**
 * The opener's argument vector: `$BROWSER` (split on spaces, never given to a shell), else the
 * platform's opener. explorer.exe rather than `cmd /c start`: cmd would parse `&` in the URL.
 */
export function openerCommand(
  url: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): [string, string[]] {
  const browser = env.BROWSER?.trim();
  if (browser) {
    const [cmd, ...args] = browser.split(/\s+/);
    return [cmd, [...args, url]];
  }
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['explorer.exe', [url]];
  return ['xdg-open', [url]];
}

/** Starts the opener for `url`, detached; whether it started. */
export function launchBrowser(url: string, env: NodeJS.ProcessEnv): Promise<{ started: boolean; command: string }> {
  const [cmd, args] = openerCommand(url, env);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true, shell: false });
    child.once('error', () => resolve({ started: false, command: cmd }));
    child.once('spawn', () => {
      child.unref();
      resolve({ started: true, command: cmd });
    });
  });
}

/**
 * Opens `url` in the user's browser (`gh … --web` style), or prints it: piped, or with
 * `BROWSER=none`, stdout gets the URL alone so scripts can use it. When no opener can be started,
 * the URL is printed too. Only addresses on `baseUrl`'s origin are opened or printed. Resolves
 * once the opener started (or failed to).
 */
export async function openInBrowser(url: string, baseUrl: string, io: IO, env: NodeJS.ProcessEnv): Promise<void> {
  const href = openable(url, baseUrl);
  if (!io.isStdoutTTY || env.BROWSER === 'none') {
    io.stdout.write(`${href}\n`);
    return;
  }
  const { started, command } = await launchBrowser(href, env);
  if (started) io.stderr.write(`Opening ${href} in your browser.\n`);
  else {
    io.stderr.write(`Could not start \`${command}\` to open a browser; open this address yourself:\n`);
    io.stdout.write(`${href}\n`);
  }
}
