/**
 * The browser half of `wcm auth login --web` (docs/cli.md: Logging in through the browser): PKCE, the authorize URL, the
 * decision to open a browser or print the URL, and the loopback listener that receives the
 * redirect and checks `state` and `iss` (RFC 8252, RFC 9207). Loaded only by `auth login --web`.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CliError, EXIT } from './errors.js';

/** A PKCE pair, S256 only (plain is refused). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Whether a browser can be opened: not when stdout is piped, `BROWSER=none`, or Linux has no display. */
export function canOpenBrowser(
  env: NodeJS.ProcessEnv,
  stdoutIsTTY: boolean,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (!stdoutIsTTY || env.BROWSER === 'none') return false;
  // $BROWSER comes first (TRUST §6): it may be a text browser or a script, no display needed.
  if (env.BROWSER?.trim()) return true;
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return false;
  return true;
}

const CLOSE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>wcm</title><p>You can close this tab and go back to the terminal.</p>';
const FAIL_PAGE = (why: string) =>
  `<!doctype html><meta charset="utf-8"><title>wcm</title><p>wcm could not log in: ${why.replace(/[<>&"]/g, '')}. Go back to the terminal.</p>`;

export interface LoopbackResult {
  code: string;
}

/**
 * Listens on 127.0.0.1 (a free port) for one redirect. `redirectUri` is known once listening;
 * `result` settles with the code when `state` and `iss` match, rejects (exit 4) on an OAuth error
 * or a mismatch, and rejects (exit 1) after `timeoutMs`.
 */
export async function listenForRedirect(opts: { state: string; issuer: string; timeoutMs: number }): Promise<{
  redirectUri: string;
  result: Promise<LoopbackResult>;
  close(): void;
}> {
  let settle!: (r: LoopbackResult) => void;
  let fail!: (e: Error) => void;
  const result = new Promise<LoopbackResult>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    // `Connection: close` on every answer: a browser that keeps its connection (or asks for a
    // favicon next) must not keep this process waiting.
    if (u.pathname !== '/callback') {
      res.writeHead(404, { connection: 'close' }).end();
      return;
    }
    const q = u.searchParams;
    const answer = (status: number, page: string) => {
      res
        .writeHead(status, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'close',
        })
        .end(page);
    };
    // A redirect with another state is not ours (or forged): refuse it and keep nothing.
    if (q.get('state') !== opts.state) {
      answer(400, FAIL_PAGE('the answer did not match this login (state)'));
      fail(
        new CliError(
          'The browser came back with another `state` than this login sent; nothing was saved.',
          EXIT.auth,
          'Run `wcm auth login --web` again.',
        ),
      );
      return;
    }
    // RFC 9207: the issuer must be the one discovered, so a code from a mix-up is not exchanged.
    if (q.get('iss') !== opts.issuer) {
      answer(400, FAIL_PAGE('the answer came from another server (iss)'));
      fail(
        new CliError(
          `The authorization answer names issuer \`${q.get('iss') ?? '(none)'}\`, not ${opts.issuer}; nothing was saved.`,
          EXIT.auth,
          'Run `wcm auth login --web` again.',
        ),
      );
      return;
    }
    if (q.get('error')) {
      answer(200, FAIL_PAGE(q.get('error_description') ?? q.get('error')!));
      fail(
        new CliError(
          `The server refused the login: ${q.get('error')}${q.get('error_description') ? ` (${q.get('error_description')})` : ''}; nothing was saved.`,
          EXIT.auth,
          'Run `wcm auth login --web` again, and approve on the consent page.',
        ),
      );
      return;
    }
    const code = q.get('code');
    if (!code) {
      answer(400, FAIL_PAGE('no code in the answer'));
      fail(
        new CliError(
          'The browser came back without a `code`; nothing was saved.',
          EXIT.auth,
          'Run `wcm auth login --web` again.',
        ),
      );
      return;
    }
    answer(200, CLOSE_PAGE);
    settle({ code });
  });
  // Every socket, including a browser's preconnects that never send a request, so close() can end them all.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const timer = setTimeout(() => {
    fail(
      new CliError(
        `No answer from the browser within ${Math.round(opts.timeoutMs / 1000)} s; nothing was saved.`,
        EXIT.failure,
        'Run `wcm auth login --web` again (or pass a longer `--timeout`).',
      ),
    );
  }, opts.timeoutMs);
  /**
   * Stops listening and ends every connection at once, whatever the browser still holds open
   * (keep-alive, a preconnect, a favicon request): the login must exit as soon as it is saved.
   * The answer was handed to the socket before the result settled, so it is not cut short.
   */
  const close = () => {
    clearTimeout(timer);
    server.close();
    server.closeAllConnections();
    for (const socket of sockets) socket.destroy();
    server.unref();
  };
  void result.then(close, close);
  return { redirectUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, result, close };
}

/** The authorize URL: client, redirect, scopes, state, S256 challenge, resource. */
export function authorizeUrl(
  endpoint: string,
  p: { clientId: string; redirectUri: string; scopes: string[]; state: string; challenge: string; resource: string },
): string {
  const u = new URL(endpoint);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('client_id', p.clientId);
  u.searchParams.set('redirect_uri', p.redirectUri);
  u.searchParams.set('scope', p.scopes.join(' '));
  u.searchParams.set('state', p.state);
  u.searchParams.set('code_challenge', p.challenge);
  u.searchParams.set('code_challenge_method', 'S256');
  u.searchParams.set('resource', p.resource);
  return u.href;
}
