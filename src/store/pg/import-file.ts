import { REFERENCES, type Problem, type RecordSink } from '../fixture-check.js';
import { FIXTURE_COLLECTIONS } from '../fixture-schema.js';
import { IdPositions } from './id-positions.js';

export const exists = (id: string) => `id \`${id}\` already exists in the store`;

/** Problems of ids taken, in the order checkFixture finds them: by collection, then position. */
function takenOrder(a: { c: string; index: number }, b: { c: string; index: number }): number {
  const order = FIXTURE_COLLECTIONS as readonly string[];
  return order.indexOf(a.c) - order.indexOf(b.c) || a.index - b.index;
}

/** Per collection, the fields of the references checkFixture checks across records. */
const REFS_OF = new Map<string, string[]>();
for (const [c, field] of REFERENCES) REFS_OF.set(c, [...(REFS_OF.get(c) ?? []), field]);

/** An id a table held, at its record's place in the file. */
interface Taken {
  c: string;
  index: number;
  problem: Problem;
}

/**
 * One file's table-kept records (table-import.ts): checked as they come, then handed on as rows.
 * Kept per record: its id's position (packed, id-positions.ts) and, per reference, its position
 * under the id it names (a workspace's list of positions: few ids, many records).
 */
/** What a file's records need of the import they are part of (TableImport, which imports this file). */
export interface ImportOfFiles {
  readonly failure: unknown;
  takes(c: string): boolean;
  earlier(before: number, c: string, id: string): boolean;
  add(file: FileRecords, c: string, index: number, rec: { id: string } | null): void;
  settle(): Promise<void>;
}

export class FileRecords implements RecordSink {
  private readonly ids = new Map<string, IdPositions>();
  /** Per `collection.field`, per id named, the positions naming it. */
  private readonly refs = new Map<string, Map<string, number[]>>();
  private readonly problems = new Map<string, Problem[]>();
  private readonly counts = new Map<string, number>();
  /** Ids the tables hold already: refused only if the files have no other problem (as before any write). */
  private readonly held: Taken[] = [];

  constructor(
    private readonly all: ImportOfFiles,
    readonly source: string,
    private readonly no: number,
  ) {}

  get failure(): unknown {
    return this.all.failure;
  }

  takes(c: string): boolean {
    return this.all.takes(c);
  }

  count(c: string): number {
    return this.counts.get(c) ?? 0;
  }

  has(c: string, id: string): boolean {
    return !!this.ids.get(c)?.has(id);
  }

  record(c: string, rec: unknown, index: number): void {
    const r = rec as Record<string, unknown> & { id: string };
    let ids = this.ids.get(c);
    if (!ids) this.ids.set(c, (ids = new IdPositions()));
    const before = ids.swap(r.id, index);
    const problem =
      before !== undefined
        ? `duplicate id \`${r.id}\` (also at $.${c}[${before}].id)`
        : this.all.earlier(this.no, c, r.id)
          ? exists(r.id)
          : null;
    if (problem) this.problemsOf(c).push({ path: `$.${c}[${index}].id`, message: problem });
    for (const field of REFS_OF.get(c) ?? []) this.named(c, field, r[field], index);
    this.counts.set(c, this.count(c) + 1);
    this.all.add(this, c, index, problem ? null : r);
  }

  settle(): Promise<void> {
    return this.all.settle();
  }

  idProblems(c: string): readonly Problem[] {
    return this.problems.get(c) ?? [];
  }

  refProblems(c: string, field: string, target: string, has: (id: string) => boolean): Problem[] {
    const missing: Array<[number, string]> = [];
    for (const [id, at] of this.refs.get(`${c}.${field}`) ?? [])
      if (!has(id)) for (const i of at) missing.push([i, id]);
    return missing
      .sort((a, b) => a[0] - b[0])
      .map(([i, id]) => ({
        path: `$.${c}[${i}].${field}`,
        message: `refers to ${target} \`${id}\`, which does not exist`,
      }));
  }

  /** The record `id` of `c` is in its table already. */
  taken(c: string, index: number, id: string): void {
    this.held.push({ c, index, problem: { path: `$.${c}[${index}].id`, message: exists(id) } });
  }

  /** The record `id` of `c`, if this file holds it, was committed by another process since it was looked up. */
  refuseMoved(c: string, id: string): void {
    const index = this.ids.get(c)?.get(id);
    if (index !== undefined) this.taken(c, index, id);
  }

  /** The ids the tables held, in checkFixture's order. */
  takenProblems(): Problem[] {
    return this.held.sort(takenOrder).map((t) => t.problem);
  }

  private problemsOf(c: string): Problem[] {
    let p = this.problems.get(c);
    if (!p) this.problems.set(c, (p = []));
    return p;
  }

  private named(c: string, field: string, id: unknown, index: number): void {
    if (typeof id !== 'string') return;
    const key = `${c}.${field}`;
    let m = this.refs.get(key);
    if (!m) this.refs.set(key, (m = new Map()));
    const at = m.get(id);
    if (at) at.push(index);
    else m.set(id, [index]);
  }
}
