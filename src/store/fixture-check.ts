import type { z } from 'zod';
import { FixtureSchema } from './fixture-schema.js';
import type { FixtureSink } from './fixture-stream.js';
import { plainThread } from './fixture-fast.js';
import { rawThread } from './fixture-raw.js';
import type { LazyLines } from './lazy-lines.js';
import { packThread, type FullThread } from './threads.js';

/** One thing wrong with a fixture, at its JSON path. */
export interface Problem {
  path: string;
  message: string;
}

/** At most this many problems are kept (and shown); the rest are counted. */
const KEPT_PROBLEMS = 20;

export class FixtureError extends Error {
  /**
   * Set by FixtureCollector when the schema found problems: what the records that passed it name
   * (ids, references), so the checks across records still run and one pass reports every problem.
   */
  partial?: CheckedFixture;

  constructor(
    readonly source: string,
    readonly problems: Problem[],
    readonly total = problems.length,
  ) {
    super(
      `${source} is not a valid store fixture; nothing was imported:\n` +
        problems
          .slice(0, KEPT_PROBLEMS)
          .map((p) => `  ${p.path}: ${p.message}`)
          .join('\n') +
        (total > KEPT_PROBLEMS ? `\n  … and ${total - KEPT_PROBLEMS} more` : ''),
    );
  }
}

export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  return '$' + path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
}

/**
 * Where a streamed file's records of the collections it `takes` go as they pass their schema,
 * instead of into the fixture (pg/table-import.ts): threads, and on PostgreSQL the records kept in
 * tables. It checks them across records as checkFixture would, keeping ids and references only.
 */
export interface RecordSink {
  takes(c: string): boolean;
  record(c: string, rec: unknown, index: number): void;
  /** Awaited between pieces of the file (fixture-stream.ts). */
  settle(): Promise<void> | undefined;
  /** What `settle` threw when the sink failed (the database), not the file. */
  readonly failure: unknown;
  /** How many records of `c` it took. */
  count(c: string): number;
  /** Whether it took a record `id` of `c`. */
  has(c: string, id: string): boolean;
  /** Duplicate ids and ids that exist already, in file order, worded as checkFixture words them. */
  idProblems(c: string): readonly Problem[];
  /** The records of `c` whose `field` names a record of `target` that `has` not, in file order. */
  refProblems(c: string, field: string, target: string, has: (id: string) => boolean): Problem[];
}

/** The members of a record that the checks across records read (checkFixture): ids and references. */
const CROSS_MEMBERS = [
  'id',
  'token',
  'token_sha256',
  'user_id',
  'members',
  'workspace_id',
  'workspace_ids',
  'list_id',
  'offer_id',
  'agent_id',
  'grant_id',
  'client_id',
];
function skeleton(rec: unknown): Record<string, unknown> {
  const r = rec as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of CROSS_MEMBERS) if (r[k] !== undefined) out[k] = r[k];
  return out;
}

/** A record's references checked across records: its collection, the field, the collection it names. */
export const REFERENCES: ReadonlyArray<readonly [string, string, string]> = [
  ...[
    'listings',
    'forms',
    'pages',
    'knowledge_lists',
    'threads',
    'bookings',
    'voice_interactions',
    'offers',
    'agents',
    'orders',
    'analytics_events',
  ].map((c) => [c, 'workspace_id', 'workspaces'] as const),
  ['articles', 'list_id', 'knowledge_lists'],
  ['orders', 'offer_id', 'offers'],
  ['analytics_events', 'agent_id', 'agents'],
];

/** A fixture that passed its schema: every member validated, not yet checked across records. */
export type CheckedFixture = z.output<typeof FixtureSchema>;

type Shape = typeof FixtureSchema.shape;
const SHAPE: Shape = FixtureSchema.shape;
const isMember = (name: string): name is keyof Shape => Object.hasOwn(SHAPE, name);
/** The schema of one record of a collection member. */
const elementSchema = (name: Exclude<keyof Shape, 'version'>) => SHAPE[name].unwrap().element as z.ZodType;

/**
 * A fixture checked against its schema one member or record at a time, as a streamed file hands
 * them out (or a parsed document, member by member): the same problems, at the same JSON paths,
 * as checking the whole document at once. `done` returns the validated fixture or throws.
 */
export class FixtureCollector implements FixtureSink {
  private readonly data: Record<string, unknown> = {};
  private readonly problems: Problem[] = [];
  private total = 0;

  /**
   * With `lines`, threads are kept packed (packThread): their messages written there as they are
   * read. With a RecordSink, the records it takes are handed to it and not kept.
   */
  constructor(
    private readonly source: string,
    private readonly threads?: LazyLines | RecordSink,
  ) {}

  member(name: string, value: unknown): void {
    if (!isMember(name)) return this.problem([name], 'unknown member');
    if (Object.hasOwn(this.data, name)) return this.problem([name], 'given twice');
    this.data[name] = this.check(SHAPE[name], value, [name]);
  }

  array(name: string): void {
    if (!isMember(name)) return this.problem([name], 'unknown member');
    if (Object.hasOwn(this.data, name)) return this.problem([name], 'given twice');
    if (name === 'version') this.data[name] = this.check(SHAPE.version, [], [name]);
    else this.data[name] = [];
  }

  element(name: string, index: number, value: unknown): void {
    const list = this.data[name];
    if (!isMember(name) || name === 'version' || !Array.isArray(list)) return;
    const rec = (name === 'threads' && plainThread(value)) || this.check(elementSchema(name), value, [name, index]);
    // After a problem records are checked and only what the checks across records read is kept
    // (ids and references, not messages or bodies): nothing is imported then, but every problem is reported.
    if (this.total) {
      if (rec) list.push(skeleton(rec));
      return;
    }
    const to = this.threads;
    if (to && 'takes' in to) {
      if (to.takes(name)) to.record(name, rec, index);
      else list.push(rec);
    } else if (to && name === 'threads') list.push(packThread(rec as FullThread, to));
    else list.push(rec);
  }

  settle(): Promise<void> | undefined {
    return this.threads && 'takes' in this.threads ? this.threads.settle() : undefined;
  }

  private get lines(): LazyLines | undefined {
    return this.threads && !('takes' in this.threads) ? this.threads : undefined;
  }

  /** A thread whose messages are in the store's form already is packed from its bytes (fixture-raw.ts). */
  elementBytes(name: string, _index: number, buf: Buffer, start: number, end: number): boolean {
    const list = this.data[name];
    const lines = this.lines;
    if (name !== 'threads' || !lines || !Array.isArray(list)) return false;
    const raw = rawThread(buf, start, end);
    if (!raw) return false;
    if (!this.total) {
      list.push(raw.thread);
      lines.addJson(raw.thread.id, buf, raw.messages[0], raw.messages[1]);
    } else list.push(skeleton(raw.thread));
    return true;
  }

  done(): CheckedFixture {
    if (!Object.hasOwn(this.data, 'version')) this.check(SHAPE.version, undefined, ['version']);
    if (this.total) {
      const err = new FixtureError(this.source, this.problems, this.total);
      err.partial = this.data as CheckedFixture;
      throw err;
    }
    return this.data as CheckedFixture;
  }

  private check(schema: z.ZodType, value: unknown, at: PropertyKey[]): unknown {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys')
        for (const k of issue.keys) this.problem([...at, ...issue.path, k], 'unknown member');
      else this.problem([...at, ...issue.path], issue.message);
    }
    return undefined;
  }

  private problem(path: PropertyKey[], message: string): void {
    if (this.total++ < KEPT_PROBLEMS) this.problems.push({ path: jsonPath(path), message });
  }
}
