// `wcm serve --store postgres://…` through PgBouncer in transaction pooling mode (docs/sandbox.md):
// consecutive transactions of one client may run on different server connections, so nothing may
// rely on a session (prepared statements are off: wcm sees the pooler in between). Two real processes behind one
// pooler: what they promise across processes holds there too. A missing pgbouncer fails this file.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { authorizeUrl, FormBrowser, pkce, tokenRequest } from '../support/oauth.js';
import { PostgresEngine } from '../../src/store/postgres/engine.js';
import { startBouncer, type Bouncer } from '../support/pgbouncer.js';
import { freshDatabase, type TestDatabase } from '../support/postgres.js';
import { DEMO, demo } from '../support/server.js';

type Served = Awaited<ReturnType<typeof spawnServe>> & { origin: string };
const scratch = () => mkdtempSync(path.join(tmpdir(), 'wcm-pgbouncer-e2e-'));

let bouncer: Bouncer;
let db: TestDatabase;
/** A schema of its own in the test database, reached through the pooler. */
const pooled = () => `${bouncer.url(db.name)}?schema=b_${randomBytes(5).toString('hex')}`;

const running: Served[] = [];
async function serve(url: string, args: string[] = []): Promise<Served> {
  // spawnServe rejects as soon as the process exits, whatever else it is waiting for.
  const s = await spawnServe(['--store', url, ...args], { env: { WCM_CONFIG_DIR: scratch() } });
  const served = Object.assign(s, { origin: new URL(s.url).origin });
  running.push(served);
  return served;
}
async function stop(s: Served): Promise<void> {
  s.proc.kill('SIGTERM');
  await s.proc;
  running.splice(running.indexOf(s), 1);
}
/** A schema seeded by one process, which then stops. */
async function seeded(): Promise<string> {
  const url = pooled();
  await stop(await serve(url, ['--seed', DEMO]));
  return url;
}

/** Waits (up to 10 s) for a line of `s`'s output holding `text`: the lines after the first come a moment later. */
async function said(s: Served, text: string): Promise<void> {
  for (const end = Date.now() + 10_000; !s.lines.some((l) => l.includes(text));) {
    if (Date.now() > end) throw new Error(`wcm serve never said "${text}":\n${s.lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const auth = { Authorization: `Bearer ${demo.owner}`, 'Content-Type': 'application/json' };
async function createList(s: Served, title: string) {
  const res = await fetch(`${s.url}/workspaces/${demo.ws1}/lists`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ title, template_slug: 'faq', items: [{ title: 'Q', description: 'A' }] }),
  });
  return { status: res.status, body: await res.text() };
}
async function listTitles(s: Served): Promise<string[]> {
  const res = await fetch(`${s.url}/workspaces/${demo.ws1}/lists?limit=100`, { headers: auth });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ title: string }> }).data.map((l) => l.title);
}
async function getList(s: Served, id: string): Promise<{ status: number; title?: string }> {
  const res = await fetch(`${s.url}/workspaces/${demo.ws1}/lists/${id}`, { headers: auth });
  if (res.status !== 200) return (await res.arrayBuffer(), { status: res.status });
  return { status: 200, title: ((await res.json()) as { data: { title: string } }).data.title };
}
async function pageName(s: Served, page: string): Promise<{ status: number; name?: string }> {
  const res = await fetch(`${s.url}/workspaces/${demo.ws1}/pages/${page}`, { headers: auth });
  if (res.status !== 200) return (await res.arrayBuffer(), { status: res.status });
  return { status: 200, name: ((await res.json()) as { data: { name: string } }).data.name };
}

beforeAll(async () => {
  bouncer = await startBouncer(6);
  db = await freshDatabase();
});
afterEach(async () => {
  for (const s of running.splice(0)) {
    s.proc.kill('SIGTERM');
    await s.proc;
  }
});
afterAll(async () => {
  await db?.drop();
  await bouncer?.stop();
});

describe('two wcm serve processes through PgBouncer (pool_mode = transaction)', () => {
  it('started at once with --seed on an empty schema, both serve and the seed is there once', async () => {
    const url = pooled();
    const [a, b] = await Promise.all([serve(url, ['--seed', DEMO]), serve(url, ['--seed', DEMO])]);
    const want = (
      JSON.parse(readFileSync(DEMO, 'utf8')) as { listings: Array<{ workspace_id: string }> }
    ).listings.filter((l) => l.workspace_id === demo.ws1).length;
    for (const s of [a, b]) expect(await listTitles(s)).toHaveLength(want);
  });

  it('a write acknowledged by A is read on B at once, and 40 at once from both are all kept', async () => {
    const url = await seeded();
    const [a, b] = await Promise.all([serve(url), serve(url)]);
    // Each saw the pooler in between and turned prepared statements off, and says so.
    for (const s of [a, b])
      await said(s, 'prepared statements off: PostgreSQL sees this connection come from another address');
    for (let i = 0; i < 10; i++) {
      const made = await createList(a, `through the pooler ${i}`);
      expect(made.status).toBe(201);
      const { id } = (JSON.parse(made.body) as { data: { id: string } }).data;
      expect(await getList(b, id)).toEqual({ status: 200, title: `through the pooler ${i}` });
    }
    // With prepared statements through this pooler, some of these were answered 500 and some
    // acknowledged 201 yet never kept.
    const made = await Promise.all(Array.from({ length: 40 }, (_, i) => createList(i % 2 ? a : b, `burst ${i}`)));
    expect(made.map((m) => m.status)).toEqual(Array(40).fill(201));
    const titles = await listTitles(b);
    for (let i = 0; i < 40; i++) expect(titles).toContain(`burst ${i}`);
  });

  it('an idempotent POST sent to A and replayed on B with the same key makes one record and the same answer', async () => {
    const url = await seeded();
    const [a, b] = await Promise.all([serve(url), serve(url)]);
    const events = async () => {
      const engine = await PostgresEngine.open(url, { max: 1 });
      try {
        return await engine.read((tx) => tx.count('analytics_events'));
      } finally {
        await engine.close();
      }
    };
    const before = await events();
    const open = async (s: Served) => {
      const res = await fetch(`${s.url}/public/agents/${demo.agent1}/analytics-events/opened`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'pgbouncer-replay-0001' },
        body: JSON.stringify({}),
      });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: await res.text() };
    };
    const first = await open(a);
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    const again = await open(b);
    expect(again).toEqual({ status: 201, replayed: 'true', body: first.body });
    expect(await events()).toBe(before + 1);
  });

  it('an authorization code issued on A is redeemed once: of A and B at once one gets tokens, the other and a later try invalid_grant', async () => {
    const url = await seeded();
    const [a, b] = await Promise.all([serve(url), serve(url)]);
    const redirect = 'http://127.0.0.1:5999/callback';
    const { verifier, challenge } = pkce();
    const browser = new FormBrowser(a.origin);
    const signIn = await browser.follow(
      authorizeUrl(a.origin, {
        response_type: 'code',
        client_id: demo.oauthAppAcme,
        redirect_uri: redirect,
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    const consent = await browser.chooseAccount(signIn, 'usr_ada');
    const approved = await browser.decide(consent.body, 'approve', [demo.ws1]);
    const code = new URL(approved.headers.get('location')!).searchParams.get('code');
    expect(code).toBeTruthy();
    const form = {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: redirect,
      client_id: demo.oauthAppAcme,
      code_verifier: verifier,
    };
    const answers = await Promise.all([tokenRequest(a.origin, form), tokenRequest(b.origin, form)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(answers.find((r) => r.status === 400)!.json.error).toBe('invalid_grant');
    const issued = answers.find((r) => r.status === 200)!.json as { access_token: string };
    expect(issued.access_token).toMatch(/^wcm_oat_/);
    const later = await tokenRequest(a.origin, form);
    expect(later.status).toBe(400);
    expect(later.json.error).toBe('invalid_grant');
  });

  it('wcm local import --replace through the pooler lands while both processes serve, and neither fails a read meanwhile', async () => {
    const url = await seeded();
    const [a, b] = await Promise.all([serve(url), serve(url)]);
    const made = await createList(a, 'gone after the replace');
    expect(made.status).toBe(201);
    const { id } = (JSON.parse(made.body) as { data: { id: string } }).data;
    const dir = scratch();
    const fixture = path.join(dir, 'renamed.json');
    const doc = JSON.parse(readFileSync(DEMO, 'utf8')) as { pages: Array<{ id: string; name: string }> };
    doc.pages = doc.pages.map((p) => (p.id === demo.pageAcme ? { ...p, name: 'Renamed by the import' } : p));
    writeFileSync(fixture, JSON.stringify(doc));
    let importing = true;
    const seen: Array<{ on: string; status: number; name?: string }> = [];
    const readers = [a, b].map(async (s, n) => {
      while (importing) seen.push({ on: n ? 'B' : 'A', ...(await pageName(s, demo.pageAcme)) });
    });
    const replaced = await wcm(['local', 'import', fixture, '--replace', '--store', url], {
      env: { WCM_CONFIG_DIR: path.join(dir, 'cfg') },
      timeout: 60_000,
    }).finally(() => (importing = false));
    await Promise.all(readers);
    expect(replaced.stderr).toBe('');
    expect(replaced.exitCode).toBe(0);
    expect(replaced.stdout).toMatch(/^replaced the data of postgres:\/\//);
    expect(seen.length).toBeGreaterThan(0);
    // Every read meanwhile was answered, with the page as it was or as the import made it.
    expect(seen.filter((r) => r.status !== 200)).toEqual([]);
    expect(seen.filter((r) => r.name !== 'Acme Coffee home' && r.name !== 'Renamed by the import')).toEqual([]);
    for (const s of [a, b]) {
      expect(await pageName(s, demo.pageAcme)).toEqual({ status: 200, name: 'Renamed by the import' });
      expect((await getList(s, id)).status).toBe(404);
    }
  }, 90_000);

  it('two schemas through the same pooler keep their own records', async () => {
    const [one, two] = await Promise.all([seeded(), seeded()]);
    const [a, b] = await Promise.all([serve(one), serve(two)]);
    const madeOnA = await createList(a, 'only in schema one');
    const madeOnB = await createList(b, 'only in schema two');
    expect([madeOnA.status, madeOnB.status]).toEqual([201, 201]);
    const idA = (JSON.parse(madeOnA.body) as { data: { id: string } }).data.id;
    const idB = (JSON.parse(madeOnB.body) as { data: { id: string } }).data.id;
    expect(await getList(a, idA)).toEqual({ status: 200, title: 'only in schema one' });
    expect(await getList(b, idB)).toEqual({ status: 200, title: 'only in schema two' });
    expect((await getList(b, idA)).status).toBe(404);
    expect((await getList(a, idB)).status).toBe(404);
    expect(await listTitles(a)).not.toContain('only in schema two');
    expect(await listTitles(b)).not.toContain('only in schema one');
  });
});
