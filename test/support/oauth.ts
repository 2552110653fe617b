import { createHash, randomBytes } from 'node:crypto';

/** A PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * A browser without the rendering: a cookie jar, redirects within the server followed by hand,
 * and the forms of the sign-in and consent pages filled in the way a person would.
 */
export class FormBrowser {
  readonly cookies = new Map<string, string>();
  constructor(readonly origin: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const res = await fetch(new URL(url, this.origin), {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        cookie: this.cookieHeader(),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: init.form ? new URLSearchParams(init.form) : undefined,
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (/Max-Age=0/i.test(c) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Follows 303/302 redirects that stay on the server; returns the last response and the URL it answered. */
  async follow(
    url: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<{ res: Response; url: string; body: string }> {
    let res = await this.request(url, init);
    let at = new URL(url, this.origin).toString();
    for (let i = 0; i < 10 && res.status >= 300 && res.status < 400; i++) {
      const next = new URL(res.headers.get('location')!, at);
      if (next.origin !== this.origin) break;
      at = next.toString();
      res = await this.request(at);
    }
    return { res, url: at, body: await res.text() };
  }

  /** The value of a hidden field on a page. */
  static field(page: string, name: string): string | undefined {
    const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(page);
    return m?.[1]
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>');
  }

  /** Every hidden field of the first form on a page. */
  static hidden(page: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const m of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      out[m[1]] = m[2]
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>');
    }
    return out;
  }

  /** On the account chooser at `pageUrl`: choose `userId`. */
  async chooseAccount(page: { body: string; url: string }, userId: string) {
    const action = /<form method="post" action="([^"]+)"/.exec(page.body)![1].replace(/&amp;/g, '&');
    return this.follow(action, { form: { csrf: FormBrowser.field(page.body, 'csrf')!, user: userId } });
  }

  /** On the token sign-in page (a server not on loopback): sign in with a personal access token. */
  async signInWithToken(page: { body: string }, token: string) {
    const action = /<form method="post" action="([^"]+)"/.exec(page.body)![1].replace(/&amp;/g, '&');
    return this.follow(action, { form: { csrf: FormBrowser.field(page.body, 'csrf')!, token } });
  }

  /** The names of the checkboxes a page shows ticked. */
  static ticked(page: string): string[] {
    return [...page.matchAll(/<input type="checkbox" name="([^"]+)" value="on" checked>/g)].map((m) => m[1]);
  }

  /**
   * On the consent page: keep the abilities ticked as shown except `untick`, tick `workspaces`, and
   * press Authorize (or Deny); returns the redirect the server answered with.
   */
  async decide(
    consent: string,
    decision: 'approve' | 'deny',
    workspaces: string[] = [],
    untick: string[] = [],
  ): Promise<Response> {
    const form = FormBrowser.hidden(consent);
    for (const name of FormBrowser.ticked(consent))
      if (name.startsWith('ability_') && !untick.includes(name.slice('ability_'.length))) form[name] = 'on';
    for (const w of workspaces) form[`workspace_${w}`] = 'on';
    form.decision = decision;
    return this.request('/oauth/authorize', { form });
  }
}

/** The authorize URL of a request; `params` replace or (undefined) remove defaults. */
export function authorizeUrl(origin: string, params: Record<string, string | undefined>): string {
  const u = new URL('/oauth/authorize', origin);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

/** A POST to the token (or revocation) endpoint, parsed. */
export async function tokenRequest(
  origin: string,
  form: Record<string, string>,
  opts: { path?: string; basic?: [string, string] } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (opts.basic)
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(opts.basic[0])}:${encodeURIComponent(opts.basic[1])}`).toString('base64')}`;
  const res = await fetch(`${origin}${opts.path ?? '/oauth/token'}`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(form),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

/**
 * An authorization code for Ada and the demo's public Acme app (content:read on Acme Coffee,
 * redirect http://127.0.0.1/callback), stored as the consent page would store it, with its verifier.
 */
export async function demoCode(
  db: import('../../src/store/engine/interface.js').StoreEngine,
): Promise<{ code: string; verifier: string; clientId: string }> {
  const [{ issueCode }, { demo }] = await Promise.all([
    import('../../src/server/oauth/models/code.js'),
    import('./server.js'),
  ]);
  const { verifier, challenge } = pkce();
  const code = await issueCode(db, {
    client_id: demo.oauthAppAcme,
    redirect_uri: 'http://127.0.0.1/callback',
    user_id: 'usr_ada',
    abilities: ['content:read'],
    workspace_ids: [demo.ws1],
    resource: '',
    audience: 'wcm-api-v1',
    code_challenge: challenge,
  });
  return { code, verifier, clientId: demo.oauthAppAcme };
}

type Engine = import('../../src/store/engine/interface.js').StoreEngine;

/**
 * Moves the test's clock by `ms`, and the store's with it: the JSON engine's time is the test's
 * clock, but PostgreSQL's is the database's, which the offset setting (the emulator's clock) moves.
 */
export async function moveClock(db: Engine, clock: { advance(ms: number): void }, ms: number): Promise<void> {
  clock.advance(ms);
  if (db.kind !== 'postgres') return;
  const { CLOCK_OFFSET_SETTING, offsetOf } = await import('../../src/store/engine/interface.js');
  await db.write(async (tx) => {
    const was = offsetOf((await tx.get('settings', CLOCK_OFFSET_SETTING))?.value);
    await tx.put('settings', { id: CLOCK_OFFSET_SETTING, value: was + ms });
  });
}

/** Sets the test's clock to `to`, and takes back whatever `moveClock` moved the store's. */
export async function resetClock(db: Engine, clock: { current: Date }, to: Date): Promise<void> {
  clock.current = to;
  if (db.kind !== 'postgres') return;
  const { CLOCK_OFFSET_SETTING } = await import('../../src/store/engine/interface.js');
  await db.write((tx) => tx.put('settings', { id: CLOCK_OFFSET_SETTING, value: 0 }));
}

/** The store's time now (`tx.now()`), epoch ms: on the JSON engine, the test's clock. */
export const storeNow = (db: Engine): Promise<number> => db.read((tx) => tx.now());

/**
 * On PostgreSQL the database's clock runs on between two requests (milliseconds): a test that goes
 * to just inside a limit keeps this much of it in hand there; on the JSON engine it is exact.
 */
export const clockSlack = (db: Engine): number => (db.kind === 'postgres' ? 1_000 : 1);
