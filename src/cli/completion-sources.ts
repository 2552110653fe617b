import type { CommandDef } from './command.js';
import type { Candidate, CandidateSources } from './completion.js';
import type { Factory } from './factory.js';
import { checkIds, ID_PICKERS, leadsFurther, type IdPicker } from './pickers.js';

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

/**
 * Candidates from the target the command would use (its profile, base URL and workspace). What a
 * server sent goes to the shell, which may run it: only values that fit the argument's grammar
 * (a UUID, a version number, a slug) are offered, and descriptions lose their control characters.
 */
export function factorySources(f: Factory): CandidateSources {
  return {
    ids: (def, index, earlier) => bounded(() => ids(f, def, index, earlier)).then(clean),
    named: (kind) => bounded(() => NAMED[kind](f)).then(clean),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A word no shell reads as anything but itself (no spaces, quotes, `$`, backquotes, `;`, `|`, `&`, `<`, `>`, globs). */
const PLAIN_WORD = /^[A-Za-z0-9._:@%+=,/-]{1,200}$/;
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

function clean(candidates: Candidate[]): Candidate[] {
  return candidates
    .filter((c) => PLAIN_WORD.test(c.value))
    .map((c) => (c.description === undefined ? c : { ...c, description: c.description.replace(CONTROL, '') }));
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
  // The id grammar the command itself checks (checkIds): a UUID, or a version number.
  const valid = (value: string) => {
    try {
      checkIds({ args: [spec] }, [value]);
      return spec.pick !== 'articleVersion' || /^[1-9][0-9]{0,8}$/.test(value) || UUID.test(value);
    } catch {
      return false;
    }
  };
  return items
    .filter(fits)
    .map((x) => ({ value: String(picker.value(x)), description: String(picker.label(x) ?? '') }))
    .filter((c) => valid(c.value));
}

const NAMED: Record<Parameters<CandidateSources['named']>[0], (f: Factory) => Promise<Candidate[]>> = {
  async profile(f) {
    return Object.entries((await f.profiles()).list()).map(([name, p]) => ({ value: name, description: p.base_url }));
  },
  async template(f) {
    const res = await (await f.client()).call('listListingTemplates', { query: { limit: 100 } });
    return res.body.data
      .filter((t) => /^[a-z0-9][a-z0-9_-]{0,63}$/.test(String(t.slug)))
      .map((t) => ({ value: t.slug, description: t.name }));
  },
  async workspace(f) {
    const me = (await (await f.client()).call('getMe', {})).body.data;
    return me.workspaces.filter((w) => UUID.test(String(w.id))).map((w) => ({ value: w.id, description: w.name }));
  },
  // Snapshot names are listed only by the control plane, which takes the admin token: a TAB never
  // sends it (the profile may point anywhere), so snapshot names are not completed.
  snapshot: async () => [],
  async state() {
    return [
      { value: 'seed', description: 'what --seed loaded at first start' },
      { value: 'empty', description: 'nothing: users and tokens too' },
    ];
  },
};
