import type { CommandDef } from './command.js';
import type { Candidate, CandidateSources } from './completion.js';
import type { Factory } from './factory.js';
import { ID_PICKERS, leadsFurther, type IdPicker } from './pickers.js';

/** A completion that takes longer than this offers nothing: the shell must never hang on a TAB. */
export const COMPLETION_TIMEOUT_MS = 1500;

/** `work()` bounded by the timeout; any failure (offline, no token, no such list) is no candidates. */
async function bounded(work: () => Promise<Candidate[]>, ms = COMPLETION_TIMEOUT_MS): Promise<Candidate[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Candidate[]>((resolve) => (timer = setTimeout(() => resolve([]), ms)));
  try {
    return await Promise.race([work().catch(() => []), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Candidates from the target the command would use (its profile, base URL and workspace). */
export function factorySources(f: Factory): CandidateSources {
  return {
    ids: (def, index, earlier) => bounded(() => ids(f, def, index, earlier)),
    named: (kind) => bounded(() => NAMED[kind](f)),
  };
}

/** The ids an argument's picker lists, labelled with their names (zsh and fish show them). */
async function ids(f: Factory, def: CommandDef, index: number, earlier: string[]): Promise<Candidate[]> {
  const spec = def.args![index];
  const picker = ID_PICKERS[spec.pick!] as IdPicker<unknown>;
  const params: Record<string, string> = { workspace: await f.workspace() };
  for (const [param, from] of Object.entries(picker.after ?? {})) {
    const at = def.args!.findIndex((a) => a.pick === from);
    if (earlier[at] === undefined) return [];
    params[param] = earlier[at];
  }
  const client = await f.client();
  const data = (await client.call(picker.operationId, { params, query: picker.itemsOf ? undefined : { limit: 100 } }))
    .body.data;
  const items = picker.itemsOf ? picker.itemsOf(data) : (data as unknown as unknown[]);
  const fits = (x: unknown) =>
    (!picker.choosable || picker.choosable(x)) && (!picker.hasItems || !leadsFurther(def, index) || picker.hasItems(x));
  return items.filter(fits).map((x) => ({ value: picker.value(x), description: picker.label(x) }));
}

const snapshots = async (f: Factory): Promise<Candidate[]> => {
  const { controlRequest } = await import('./control.js');
  const list = await controlRequest<Array<{ name: string; saved_at: string }>>(f, 'GET', '/snapshots');
  return list.map((s) => ({ value: s.name, description: `snapshot saved ${s.saved_at}` }));
};

const NAMED: Record<Parameters<CandidateSources['named']>[0], (f: Factory) => Promise<Candidate[]>> = {
  async profile(f) {
    return Object.entries((await f.profiles()).list()).map(([name, p]) => ({ value: name, description: p.base_url }));
  },
  async template(f) {
    const res = await (await f.client()).call('listListingTemplates', { query: { limit: 100 } });
    return res.body.data.map((t) => ({ value: t.slug, description: t.name }));
  },
  async workspace(f) {
    const me = (await (await f.client()).call('getMe', {})).body.data;
    return me.workspaces.map((w) => ({ value: w.id, description: w.name }));
  },
  snapshot: snapshots,
  async state(f) {
    const base = [
      { value: 'seed', description: 'what --seed loaded at first start' },
      { value: 'empty', description: 'nothing: users and tokens too' },
    ];
    // The fixed states even when the server is down: the snapshots get a little less time.
    return [...base, ...(await bounded(() => snapshots(f), COMPLETION_TIMEOUT_MS - 300))];
  },
};
