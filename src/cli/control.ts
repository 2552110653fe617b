import { CliError, EXIT } from './errors.js';
import type { Factory } from './factory.js';
import { isLoopbackUrl } from './local.js';

/**
 * The admin token for the running server's control plane (`/_emulator/…`; docs/server.md: Controlling a
 * running server): the one `wcm serve` saved in the chosen profile or `local`, sent only to the
 * origin that profile points at (like every saved token), else WCM_ADMIN_TOKEN, sent only to a
 * loopback server or to the origin named by WCM_ADMIN_ORIGIN: a profile pointing at another host
 * never receives it.
 */
async function adminAuth(f: Factory): Promise<{ origin: string; token: string }> {
  const t = await f.target();
  const origin = new URL(t.baseUrl).origin;
  const profiles = await f.profiles();
  // The chosen profile first (`wcm serve --profile NAME` saves the admin token there), then `local`.
  const saved = [t.profile, 'local']
    .map((n) => (n ? profiles.get(n) : undefined))
    .find((p) => p?.admin_token && new URL(p.base_url).origin === origin);
  const fromEnv = f.env.WCM_ADMIN_TOKEN;
  if (fromEnv && !saved) {
    if (!adminOriginAllowed(origin, f.env.WCM_ADMIN_ORIGIN))
      throw new CliError(
        `WCM_ADMIN_TOKEN is sent only to a server on this machine (loopback) or to the origin in WCM_ADMIN_ORIGIN; ${origin} is neither, so it was not sent.`,
        EXIT.auth,
        `If the token belongs to ${origin}, set WCM_ADMIN_ORIGIN=${origin}.`,
      );
    return { origin, token: fromEnv };
  }
  const token = fromEnv && adminOriginAllowed(origin, f.env.WCM_ADMIN_ORIGIN) ? fromEnv : saved?.admin_token;
  if (!token)
    throw new CliError(
      `No admin token for ${origin}.`,
      EXIT.auth,
      '`wcm serve` saves it in profile `local` (and prints it once, when it generates it on a terminal); for another server set WCM_ADMIN_TOKEN.',
    );
  return { origin, token };
}

/** Where WCM_ADMIN_TOKEN may go: a loopback origin (127.0.0.0/8, ::1, localhost), or exactly WCM_ADMIN_ORIGIN's. */
export function adminOriginAllowed(origin: string, explicit: string | undefined): boolean {
  if (isLoopbackUrl(origin)) return true;
  if (!explicit) return false;
  try {
    return new URL(explicit).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}

export async function controlRequest<T = unknown>(
  f: Factory,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const { origin, token } = await adminAuth(f);
  let res: Response;
  try {
    res = await fetch(`${origin}/_emulator${path}`, {
      method,
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new CliError(
      `Cannot reach ${origin} (${(err as Error).message}).`,
      EXIT.failure,
      'Is `wcm serve` running there?',
    );
  }
  const text = await (await import('../client/transport.js')).boundedText(res).catch((err: Error) => {
    throw new CliError(`The answer from ${origin} was cut off: ${err.message}.`, EXIT.failure);
  });
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: reported below */
  }
  if (
    res.status === 404 &&
    (parsed as { code?: string })?.code === 'route_not_found' &&
    !path.startsWith('/snapshots/')
  ) {
    throw new CliError(`${origin} has no control plane (it is not \`wcm serve\`, or an older one).`, EXIT.notFound);
  }
  // The client's error type, loaded only on failure (commands import this module at `--help` time).
  if (!res.ok)
    throw new (await import('../client/errors.js')).ApiError(
      res.status,
      (parsed as never) ?? { title: `HTTP ${res.status}`, status: res.status, detail: text.slice(0, 200) },
    );
  return (parsed as { data: T }).data;
}

/** The control plane's origin and admin token headers, for a stream (`wcm logs --follow`). */
export async function controlStream(f: Factory, path: string): Promise<Response> {
  const { origin, token } = await adminAuth(f);
  const res = await fetch(`${origin}/_emulator${path}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    redirect: 'manual',
  });
  if (!res.ok)
    throw new (await import('../client/errors.js')).ApiError(
      res.status,
      (await res.json().catch(() => ({ title: `HTTP ${res.status}`, status: res.status }))) as never,
    );
  return res;
}
