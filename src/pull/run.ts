/*
 * `wcm pull`: one workspace of any instance into a store fixture, through v1 operations only
 * (docs/cli.md: `wcm pull`). Lists are read page by page (cursor paging), each page's records
 * got with `concurrency` requests at a time where the list shows less than the record, and written
 * at once: memory holds one page, not the workspace.
 */
import { randomBytes } from 'node:crypto';
import { CursorTrail, type ApiClient } from '../client/client.js';
import { ApiError, ClientError } from '../client/errors.js';
import { routeOf, routes, type OperationId } from '../contract/table.js';
import { ABILITIES } from '../contract/enums.js';
import { CliError, EXIT } from '../cli/errors.js';
import { toRecord } from './records.js';
import { without, WORKSPACE_COLLECTIONS } from '../store/records.js';
import { Scrubber } from './scrub.js';
import {
  FixtureWriter,
  loadState,
  promote,
  removePartial,
  saveState,
  writtenThreadIds,
  type PullState,
} from './writer.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- records as the target answered them */
type Item = any;

/** The collections a pull copies, in the order it writes them (a knowledge list before its articles). */
export const PULL_COLLECTIONS = without(WORKSPACE_COLLECTIONS, ['orders', 'analytics_events']);
export type PullCollection = (typeof PULL_COLLECTIONS)[number];

/** `--only` words: the collections' names, and the short ones the commands use. */
export const ONLY_ALIASES: Record<string, PullCollection[]> = {
  knowledge: ['knowledge_lists', 'articles'],
  voice: ['voice_interactions'],
  articles: ['knowledge_lists', 'articles'],
};

const THREAD_VIEWS = ['inbox', 'closed', 'starred', 'unread'] as const;
const PAGE = 100;

export interface PullOptions {
  client: ApiClient;
  workspace: string;
  /** The partial file and where it goes when complete. */
  partial: string;
  output: string;
  only: ReadonlySet<PullCollection>;
  /** ISO time: threads whose last message is older, and bookings starting earlier, are left out. */
  since?: string;
  maxThreads?: number;
  concurrency: number;
  knowledgeLists: string[];
  scrub: boolean;
  scrubKey?: string;
  resume: boolean;
  /** Called as records are written (progress). */
  onProgress?: (collection: string, count: number) => void;
  /** Called with notes as they arise (`--resume` started over, …). */
  onNote?: (note: string) => void;
}

export interface PullSummary {
  output: string;
  workspace: { id: string; name: string };
  collections: Array<{ name: string; count: number; status: string; reason?: string }>;
  notes: string[];
  token: string;
  user: { id: string; name: string; email: string };
  requests: number;
  resumed: boolean;
}

/** A pull that stopped: how far it got, for the message. */
export class PullStopped extends Error {
  constructor(
    override readonly cause: unknown,
    readonly state: PullState,
    readonly partial: string,
  ) {
    super((cause as Error).message);
  }
}

const OWNER = { id: 'usr_local_owner', name: 'Local owner', email: 'owner@example.invalid' };

function newToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(40);
  let s = '';
  for (const b of bytes) s += alphabet[b % alphabet.length];
  return `wcm_pat_${s}`;
}

/** Runs `fn` over `items`, `n` at a time; results in the items' order. */
async function mapPool<T, R>(items: T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (next < items.length && failed === undefined) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  if (failed !== undefined) throw failed;
  return out;
}

type Failure = 'missing' | 'forbidden' | 'gone';

/** What a failed request means for the pull: a missing operation, a refused ability, a record gone, or fatal. */
function failureOf(err: unknown): Failure | undefined {
  if (err instanceof ClientError && err.kind === 'missing') return 'missing';
  if (!(err instanceof ApiError)) return undefined;
  const code = err.problem.code;
  if (err.status === 405 || err.status === 501) return 'missing';
  if (err.status === 404) {
    if (!code || code === 'route_not_found') return 'missing';
    if (code === 'workspace_not_found') return undefined;
    return 'gone';
  }
  if (err.status === 403 && code !== 'not_a_member') return 'forbidden';
  return undefined;
}

export class Puller {
  private state!: PullState;
  private writer!: FixtureWriter;
  private scrubber: Scrubber | undefined;
  /** Operations the target's OpenAPI document lists (null: no document, so found out on first use). */
  private offered: Set<string> | null = null;
  private readonly missing = new Set<string>();
  private seenThreads = new Set<string>();
  private requests = 0;
  private goneCount: Record<string, number> = {};

  constructor(private readonly o: PullOptions) {}

  private fingerprint(): string {
    const o = this.o;
    return JSON.stringify({
      base: o.client.baseUrl,
      ws: o.workspace,
      only: [...o.only].sort(),
      since: o.since ?? null,
      max: o.maxThreads ?? null,
      kl: [...o.knowledgeLists].sort(),
      scrub: o.scrub,
    });
  }

  private async call(op: OperationId, input: Parameters<ApiClient['call']>[1]): Promise<any> {
    this.requests++;
    return (await this.o.client.call(op, input)).body;
  }

  /** Whether the target has `op`, as far as is known (its document, or what first use showed). */
  private has(op: OperationId): boolean {
    if (this.missing.has(op)) return false;
    return !this.offered || this.offered.has(op);
  }

  private markMissing(op: OperationId): void {
    if (this.missing.has(op)) return;
    this.missing.add(op);
    const r = routeOf(op)!;
    this.note(`This server does not have \`${op}\` (${r.method} ${r.path}).`);
  }

  private note(text: string): void {
    if (this.state.notes.includes(text)) return;
    this.state.notes.push(text);
  }

  private setStatus(c: string, status: string, reason?: string): void {
    const cur = this.state.statuses[c];
    // 'partial' and 'skipped' say more than 'copied': keep the first of them.
    if (cur && cur.status !== 'copied' && status === 'copied') return;
    this.state.statuses[c] = reason ? { status, reason } : { status };
  }

  /** Reads the target's OpenAPI document, once: which operations it has. */
  private async detect(): Promise<void> {
    try {
      this.requests++;
      const res = await this.o.client.request<any>({ method: 'GET', path: '/openapi.json' });
      const paths = res.body?.paths;
      if (!paths || typeof paths !== 'object') return;
      const offered = new Set<string>();
      for (const [op, r] of Object.entries(routes)) {
        if (paths[r.path]?.[r.method.toLowerCase()]) offered.add(op);
      }
      this.offered = offered;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) throw err;
      // No document (or not one we can read): each operation is tried on first use instead.
    }
  }

  /** The token holder's workspaces (`/me`), where the target has it: an unknown workspace stops here. */
  private async me(): Promise<string | undefined> {
    if (!this.has('getMe')) return undefined;
    let me: any;
    try {
      me = (await this.call('getMe', {})).data;
    } catch (err) {
      if (failureOf(err) === 'missing') {
        this.missing.add('getMe');
        return undefined;
      }
      throw err;
    }
    const ws = (me?.workspaces ?? []).find((w: Item) => w.id === this.o.workspace.toLowerCase());
    if (!ws) {
      const names = (me?.workspaces ?? []).map((w: Item) => `${w.id} (${w.name})`).join(', ');
      throw new CliError(
        `Workspace ${this.o.workspace} is not one this token reaches.`,
        EXIT.notFound,
        names ? `It reaches: ${names}. Pass one with \`--workspace\`.` : 'The token reaches no workspace.',
      );
    }
    return ws.name as string;
  }

  async run(): Promise<PullSummary> {
    const o = this.o;
    const previous = o.resume ? await loadState(o.partial) : null;
    if (o.resume && !previous)
      o.onNote?.(`No interrupted pull to resume at ${o.partial}: starting from the beginning.`);
    if (previous && previous.fingerprint !== this.fingerprint()) {
      throw new CliError(
        `The interrupted pull at ${o.partial} was started with other options (target, workspace, --only, --since, --max-threads, --knowledge-list or --scrub).`,
        EXIT.usage,
        'Run it again with the same options, or without --resume to start over.',
      );
    }
    await this.detect();
    if (previous) {
      this.state = previous;
      for (const m of previous.missing) this.missing.add(m);
      this.requests = previous.requests;
      this.writer = FixtureWriter.reopen(o.partial, previous);
      if (previous.threadsAt !== null)
        this.seenThreads = await writtenThreadIds(o.partial, previous.threadsAt, previous.offset);
    } else {
      const name = await this.me();
      const scrubKey = o.scrub ? (o.scrubKey ?? randomBytes(32).toString('hex')) : null;
      this.state = {
        version: 1,
        fingerprint: this.fingerprint(),
        token: newToken(),
        scrubKey,
        workspace: { id: o.workspace.toLowerCase(), name: name ?? 'Pulled workspace' },
        offset: 0,
        open: null,
        threadsAt: null,
        phase: 0,
        sub: 0,
        cursor: null,
        counts: {},
        statuses: {},
        notes: [],
        knowledgeLists: [],
        missing: [],
        requests: 0,
      };
      if (name === undefined)
        this.note('This server has no `/me`: the workspace is named "Pulled workspace" (its name cannot be read).');
      this.writer = FixtureWriter.create(o.partial);
      this.writeMade();
      this.save();
    }
    if (this.state.scrubKey) this.scrubber = new Scrubber(Buffer.from(this.state.scrubKey, 'utf8'));

    try {
      for (; this.state.phase < PULL_COLLECTIONS.length; this.nextPhase()) {
        const c = PULL_COLLECTIONS[this.state.phase];
        if (!o.only.has(c)) {
          this.setStatus(c, 'not requested');
          continue;
        }
        if (!this.writer.open) {
          this.writer.begin(c);
          if (c === 'threads') this.state.threadsAt = this.writer.offset;
          this.save();
        }
        await this.phase(c);
        this.writer.end();
        this.state.counts[c] ??= 0;
        this.setStatus(c, 'copied');
      }
      for (const [c, n] of Object.entries(this.goneCount))
        this.note(`${n} ${c} were listed but gone by the time they were read (deleted during the pull): left out.`);
      this.writer.finish();
      promote(o.partial, o.output);
    } catch (caught) {
      this.writer.close();
      let err = caught;
      if (
        err instanceof ApiError &&
        (err.problem.code === 'not_a_member' || err.problem.code === 'workspace_not_found')
      )
        err = new CliError(
          `Workspace ${o.workspace} is not one this token reaches (${err.status} ${err.problem.code}).`,
          EXIT.notFound,
          'Check the workspace id; `wcm auth status` lists the workspaces a token reaches, where the server has `/me`.',
        );
      // Nothing but the made records written (a refused token, an unknown workspace at the first
      // request): no partial file is left for a resume that would only fail the same way.
      if (!this.anyRecord()) removePartial(o.partial);
      throw new PullStopped(err, this.state, o.partial);
    }
    return this.summary(!!previous);
  }

  private anyRecord(): boolean {
    return Object.values(this.state.counts).some((n) => n > 0);
  }

  private nextPhase(): void {
    this.state.phase++;
    this.state.sub = 0;
    this.state.cursor = null;
    this.save();
  }

  private save(): void {
    this.state.offset = this.writer.offset;
    this.state.open = this.writer.open ? { ...this.writer.open } : null;
    this.state.missing = [...this.missing];
    this.state.requests = this.requests;
    saveState(this.o.partial, this.state);
  }

  /** The owner and the token made for the copy: nothing of the source's users, tokens or OAuth. */
  private writeMade(): void {
    const w = this.writer;
    const s = this.state;
    w.begin('users');
    w.add([OWNER]);
    w.end();
    w.begin('workspaces');
    w.add([
      {
        id: s.workspace.id,
        name: s.workspace.name,
        stripe_account_id: null,
        members: [{ user_id: OWNER.id, role: 'owner' }],
      },
    ]);
    w.end();
    w.begin('tokens');
    w.add([{ token: s.token, user_id: OWNER.id, name: 'wcm pull', abilities: [...ABILITIES], expires_at: null }]);
    w.end();
  }

  private written(c: string, records: unknown[]): void {
    this.writer.add(records);
    this.state.counts[c] = (this.state.counts[c] ?? 0) + records.length;
    this.o.onProgress?.(c, this.state.counts[c]);
  }

  /**
   * Pages through a list from the saved cursor, writing each page's records before the next:
   * `make` turns a page's items into records (got with their get operations where it needs them).
   * Returns false when the list cannot be read (missing, or an ability the token lacks).
   */
  private async list(
    c: PullCollection,
    op: OperationId,
    params: Record<string, string>,
    query: Record<string, string | number | undefined>,
    make: (items: Item[]) => Promise<{ records: unknown[]; stop?: boolean }>,
  ): Promise<boolean> {
    if (!this.has(op)) {
      this.setStatus(c, 'skipped', `this server does not have \`${op}\``);
      return false;
    }
    // A server whose cursors go round (A, B, A…) is stopped with an error, not followed for ever.
    const trail = new CursorTrail(op);
    trail.add(this.state.cursor ?? undefined);
    for (;;) {
      let page: any;
      try {
        page = await this.call(op, {
          params,
          query: { ...query, limit: PAGE, cursor: this.state.cursor ?? undefined },
        });
      } catch (err) {
        const f = failureOf(err);
        if (f === 'missing') {
          this.markMissing(op);
          this.setStatus(c, 'skipped', `this server does not have \`${op}\``);
          return false;
        }
        if (f === 'forbidden') {
          const ability = routeOf(op)?.ability;
          this.setStatus(c, 'skipped', `the token may not read it${ability ? ` (needs ${ability})` : ''}`);
          return false;
        }
        throw err;
      }
      const { records, stop } = await make(page.data ?? []);
      this.written(c, records);
      const next = page.meta?.next_cursor ?? null;
      if (next && !stop) trail.add(next);
      this.state.cursor = stop ? null : next;
      this.save();
      if (stop || !next) return true;
    }
  }

  /** Gets each item with `op` where the target has it; null where it cannot (the list entry then). */
  private async gets(
    c: PullCollection,
    op: OperationId,
    items: Item[],
    params: (item: Item) => Record<string, string>,
  ) {
    if (!items.length) return [];
    const one = async (item: Item): Promise<Item | null | 'gone'> => {
      if (!this.has(op)) return null;
      try {
        return (await this.call(op, { params: params(item) })).data;
      } catch (err) {
        const f = failureOf(err);
        if (f === 'missing') {
          this.markMissing(op);
          return null;
        }
        if (f === 'gone') return 'gone';
        if (f === 'forbidden') {
          this.note(`\`${op}\` was refused (needs ${routeOf(op)?.ability}): ${c} made from their list entries.`);
          return null;
        }
        throw err;
      }
    };
    let done = 0;
    const got = await mapPool(items, this.o.concurrency, async (item) => {
      const g = await one(item);
      this.o.onProgress?.(c, (this.state.counts[c] ?? 0) + ++done);
      return g;
    });
    const out: Array<{ item: Item; full: Item | null }> = [];
    got.forEach((g, i) => {
      if (g === 'gone') this.goneCount[c] = (this.goneCount[c] ?? 0) + 1;
      else out.push({ item: items[i], full: g });
    });
    if (out.some((x) => x.full === null))
      this.setStatus(
        c,
        'partial',
        `made from list entries: \`${op}\` could not be used (what the list does not show is made up)`,
      );
    return out;
  }

  private async phase(c: PullCollection): Promise<void> {
    const ws = this.state.workspace.id;
    const s = this.scrubber;
    const wsp = { workspace: ws };
    const counted = () => this.state.counts[c] ?? 0;
    switch (c) {
      case 'listings':
        await this.list(c, 'listListings', wsp, {}, async (items) => {
          const base = counted();
          const got = await this.gets(c, 'getListing', items, (l) => ({ ...wsp, list: l.id }));
          return { records: got.map(({ item, full }, i) => toRecord.listing(ws, full ?? item, !!full, base + i, s)) };
        });
        return;
      case 'forms':
        await this.list(c, 'listForms', wsp, {}, async (items) => {
          const got = await this.gets(c, 'getForm', items, (f) => ({ ...wsp, form: f.id }));
          return { records: got.map(({ item, full }) => toRecord.form(ws, full ?? item, !!full, s)) };
        });
        return;
      case 'pages':
        await this.list(c, 'listPages', wsp, {}, async (items) => {
          const got = await this.gets(c, 'getPage', items, (p) => ({ ...wsp, page: p.id }));
          return { records: got.map(({ item, full }) => toRecord.page(ws, full ?? item, !!full, s)) };
        });
        return;
      case 'knowledge_lists':
        return this.knowledgeLists();
      case 'articles':
        return this.articles();
      case 'threads':
        return this.threads();
      case 'bookings':
        await this.list(c, 'listBookings', wsp, { from: this.o.since }, async (items) => ({
          records: items.map((b) => toRecord.booking(ws, b, s)),
        }));
        return;
      case 'voice_interactions':
        await this.list(c, 'listVoiceInteractions', wsp, {}, async (items) => ({
          records: items.map((v) => toRecord.voice(ws, v, s)),
        }));
        return;
      case 'offers':
        await this.list(c, 'listOffers', wsp, {}, async (items) => ({
          records: items.map((x) => toRecord.offer(ws, x, s)),
        }));
        return;
      case 'agents':
        await this.list(c, 'listAgents', wsp, {}, async (items) => ({
          records: items.map((x) => toRecord.agent(ws, x, s)),
        }));
        return;
    }
  }

  private async knowledgeLists(): Promise<void> {
    const c = 'knowledge_lists';
    const ws = this.state.workspace.id;
    const given = this.o.knowledgeLists.map((id) => id.toLowerCase());
    // sub 0: the lists the target enumerates; sub 1: those given with --knowledge-list it did not.
    if (this.state.sub === 0) {
      const listed = await this.list(c, 'listKnowledgeLists', { workspace: ws }, {}, async (items) => {
        const records = items.map((l) => toRecord.knowledgeList(ws, l, this.scrubber));
        this.state.knowledgeLists.push(...items.map((l) => ({ id: l.id as string, name: l.name as string })));
        return { records };
      });
      if (!listed && !given.length) {
        const why = this.state.statuses[c]?.reason ?? 'they cannot be listed';
        this.setStatus(c, 'skipped', `${why}; pass --knowledge-list ID for each list to copy`);
      }
      this.state.sub = 1;
      this.state.cursor = null;
      this.save();
    }
    const extra = given.filter((id) => !this.state.knowledgeLists.some((l) => l.id === id));
    const records: unknown[] = [];
    for (const id of extra) {
      const l = { id, name: `Knowledge list ${id.slice(0, 8)}` };
      records.push(toRecord.knowledgeList(ws, l, this.scrubber));
      this.state.knowledgeLists.push(l);
    }
    if (extra.length) {
      this.written(c, records);
      this.note(
        `Knowledge lists given with --knowledge-list that the server did not list are named "Knowledge list <id>": their names cannot be read.`,
      );
      if (this.state.statuses[c]?.status === 'skipped')
        this.setStatus(c, 'partial', 'only the lists given with --knowledge-list (names made up)');
      this.save();
    }
  }

  private async articles(): Promise<void> {
    const c = 'articles';
    const ws = this.state.workspace.id;
    const lists = this.state.knowledgeLists;
    if (!lists.length && this.state.statuses.knowledge_lists?.status === 'skipped') {
      this.setStatus(c, 'skipped', 'no knowledge list could be read');
      return;
    }
    for (; this.state.sub < lists.length; this.state.sub++, this.state.cursor = null, this.save()) {
      const list = lists[this.state.sub].id;
      const params = { workspace: ws, list };
      await this.list(c, 'listArticles', params, {}, async (items) => {
        const base = this.state.counts[c] ?? 0;
        const got = await this.gets(c, 'getArticle', items, (a) => ({ ...params, article: a.id }));
        return {
          records: got.map(({ item, full }, i) =>
            toRecord.article(list, full ?? item, !!full, base + i, this.scrubber),
          ),
        };
      }).catch((err) => {
        // A list given with --knowledge-list that does not exist: said, and the others go on.
        if (err instanceof ApiError && err.status === 404 && err.problem.code === 'list_not_found') {
          this.note(`Knowledge list ${list} does not exist on the server: it is in the copy with no articles.`);
          return true;
        }
        throw err;
      });
    }
  }

  private async threads(): Promise<void> {
    const c = 'threads';
    const ws = this.state.workspace.id;
    const max = this.o.maxThreads ?? Infinity;
    const since = this.o.since;
    if (since) this.note(`Threads whose last message is before ${since} are left out (--since).`);
    for (; this.state.sub < THREAD_VIEWS.length; this.state.sub++, this.state.cursor = null, this.save()) {
      const view = THREAD_VIEWS[this.state.sub];
      if ((this.state.counts[c] ?? 0) >= max) break;
      const ok = await this.list(c, 'listThreads', { workspace: ws }, { view }, async (items) => {
        let stop = false;
        const fresh: Item[] = [];
        for (const t of items) {
          if (since && (!t.last_message_at || t.last_message_at < since)) {
            stop = true; // newest first: the rest of this view is older still
            break;
          }
          if (this.seenThreads.has(t.id)) continue;
          if ((this.state.counts[c] ?? 0) + fresh.length >= max) {
            stop = true;
            break;
          }
          fresh.push(t);
        }
        const got = await this.gets(c, 'getThread', fresh, (t) => ({ workspace: ws, thread: t.id }));
        for (const { item } of got) this.seenThreads.add(item.id);
        return { records: got.map(({ item, full }) => toRecord.thread(ws, full ?? item, !!full, this.scrubber)), stop };
      });
      if (!ok) return;
    }
    if (max !== Infinity && (this.state.counts[c] ?? 0) >= max)
      this.note(`Threads stopped at ${max} (--max-threads): the newest of each view first.`);
  }

  private summary(resumed: boolean): PullSummary {
    const s = this.state;
    return {
      output: this.o.output,
      workspace: s.workspace,
      collections: PULL_COLLECTIONS.map((c) => ({
        name: c,
        count: s.counts[c] ?? 0,
        ...(s.statuses[c] ?? { status: 'copied' }),
      })),
      notes: s.notes,
      token: s.token,
      user: OWNER,
      requests: this.requests,
      resumed,
    };
  }
}
