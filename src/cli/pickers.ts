import type { OperationId } from '../contract/table.js';
import type { ListOperationId } from '../contract/types.js';
import type { CommandDef, PickerName } from './command.js';
import { CliError, EXIT, UsageError, exitCodeOf, isReported } from './errors.js';
import { formatMoney, terminalSafe } from './output.js';
import type { Factory } from './factory.js';
import type {
  AgentSummary,
  Article,
  ArticleSummary,
  FormSummary,
  KnowledgeListSummary,
  ListingSummary,
  OfferSummary,
  PageSummary,
  ThreadSummary,
} from '../contract/types.js';

/** The id pickers, by the kind of id (not the argument's name: `LIST` is a listing in `lists show`, a knowledge list in `articles ls`). */
export type { PickerName };

/**
 * How an id argument is found when it is left out: which operation lists the candidates, which
 * earlier arguments its path needs, and how each candidate is labelled. ONE table: the pickers
 * below read it, and so can anything else that maps an id argument to its list (shell completion).
 * A command opts in with `pick: '<name>'` on its ArgSpec.
 */
export interface IdPicker<T = never> {
  /** What the id names, in prompts and messages. */
  noun: string;
  /** Plural, for "No forms …". */
  nouns: string;
  /** The operation the choices come from: a list operation, or (`itemsOf`) one record holding them. */
  operationId: OperationId;
  /** The command that prints the same ids, for hints. */
  lsCommand: string;
  /** Path parameters filled from earlier arguments of the same command: parameter → picker of that argument. */
  after?: Readonly<Record<string, PickerName>>;
  /** For a record operation: the candidates inside the record. */
  itemsOf?(record: unknown): T[];
  /** Candidates that fit (an inactive offer cannot be paid). */
  choosable?(item: T): boolean;
  /** False for a container with nothing in it, skipped when the next argument is picked from inside it. */
  hasItems?(item: T): boolean;
  value(item: T): string;
  label(item: T): string;
  description?(item: T): string;
}

/** A row whose value is the item's id and whose plural is `<noun>s`, described by the id unless it says otherwise. */
const byId = <T extends { id: string }>(row: Omit<IdPicker<T>, 'nouns' | 'value'> & { nouns?: string }) => ({
  nouns: `${row.noun}s`,
  value: (item: T) => item.id,
  description: (item: T) => item.id,
  ...row,
});

// `satisfies` keeps each row's item type for its callbacks while the table stays one object.
export const ID_PICKERS = {
  listing: byId({
    noun: 'listing',
    operationId: 'listListings',
    lsCommand: 'wcm lists ls',
    label: (l: ListingSummary) => l.title,
  }),
  form: byId({
    noun: 'form',
    operationId: 'listForms',
    lsCommand: 'wcm forms ls',
    label: (x: FormSummary) => x.name,
    description: (x: FormSummary) => `${x.field_count} field${x.field_count === 1 ? '' : 's'} · ${x.id}`,
  }),
  page: byId({
    noun: 'page',
    operationId: 'listPages',
    lsCommand: 'wcm pages ls',
    label: (p: PageSummary) => `${p.name} (/${p.slug})`,
    description: (p: PageSummary) => `${p.published ? 'published' : 'unpublished'} · ${p.id}`,
  }),
  knowledgeList: byId({
    noun: 'knowledge list',
    operationId: 'listKnowledgeLists',
    lsCommand: 'wcm knowledge ls',
    hasItems: (k: KnowledgeListSummary) => k.article_count > 0,
    label: (k: KnowledgeListSummary) => k.name,
    description: (k: KnowledgeListSummary) => `${k.article_count} article${k.article_count === 1 ? '' : 's'} · ${k.id}`,
  }),
  article: byId({
    noun: 'article',
    operationId: 'listArticles',
    lsCommand: 'wcm articles ls LIST',
    after: { list: 'knowledgeList' },
    label: (a: ArticleSummary) => a.title,
    description: (a: ArticleSummary) => `${a.status}, v${a.current_version} · ${a.id}`,
  }),
  articleVersion: {
    noun: 'version',
    nouns: 'versions',
    operationId: 'getArticle',
    lsCommand: 'wcm articles show LIST ARTICLE',
    after: { list: 'knowledgeList', article: 'article' },
    itemsOf: (a: unknown) => [...(a as Article).versions].reverse(),
    value: (v: Article['versions'][number]) => String(v.number),
    label: (v: Article['versions'][number]) => `v${v.number} ${v.title}`,
    description: (v: Article['versions'][number]) => `${v.published ? 'published' : 'not published'} · ${v.created_at}`,
  },
  offer: byId({
    noun: 'offer',
    nouns: 'active offers',
    operationId: 'listOffers',
    lsCommand: 'wcm offers ls',
    choosable: (o: OfferSummary) => o.active,
    label: (o: OfferSummary) => o.title,
    description: (o: OfferSummary) =>
      `${o.kind}, ${o.unit_amount_minor === null ? 'buyer sets the amount' : formatMoney(o.unit_amount_minor, o.currency)} · ${o.id}`,
  }),
  agent: byId({
    noun: 'agent',
    operationId: 'listAgents',
    lsCommand: 'wcm agents ls',
    label: (a: AgentSummary) => a.name,
  }),
  thread: byId({
    noun: 'thread',
    nouns: 'threads in the inbox',
    operationId: 'listThreads',
    lsCommand: 'wcm threads ls',
    label: (t: ThreadSummary) =>
      `${t.contact.name ?? t.contact.email ?? t.contact.phone ?? 'unknown'}: ${t.subject ?? t.last_message_preview ?? ''}`,
    description: (t: ThreadSummary) => `${t.last_message_at ?? ''} · ${t.id}`,
  }),
} as const satisfies Record<PickerName, IdPicker<any>>; // eslint-disable-line @typescript-eslint/no-explicit-any

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `3`, or `v3` as `articles show` labels versions. */
const VERSION_NUMBER = /^v?([1-9][0-9]{0,8})$/i;

/**
 * Checks each id given before anything is sent, so a typo is exit 2 naming the argument and where
 * ids come from, not a 404 after a round trip. A version may be written `v2` (as `articles show`
 * prints it): it is sent as `2`.
 */
export function checkIds(def: Pick<CommandDef, 'args'>, args: string[]): string[] {
  return args.map((value, i) => {
    const spec = def.args?.[i];
    if (!spec || (!spec.pick && !spec.shape)) return value;
    if (spec.pick === 'articleVersion') {
      const n = VERSION_NUMBER.exec(value);
      if (n) return n[1];
      if (UUID.test(value)) return value;
      throw new UsageError(
        `\`${spec.name}\` must be a version number (1, 2, … or v2) or a version id; received \`${value}\`.`,
        `See the versions with \`${ID_PICKERS.articleVersion.lsCommand}\`.`,
      );
    }
    if (spec.shape) {
      if (spec.shape.pattern.test(value)) return value;
      throw new UsageError(
        `\`${spec.name}\` must look like ${spec.shape.like}; received \`${value}\`.`,
        `Find ids with \`${spec.shape.find}\`.`,
      );
    }
    if (UUID.test(value)) return value;
    const picker = ID_PICKERS[spec.pick!];
    throw new UsageError(
      `\`${spec.name}\` must be ${/^[aeiou]/.test(picker.noun) ? 'an' : 'a'} ${picker.noun} id (a UUID); received \`${value}\`.`,
      `Find ids with \`${picker.lsCommand}\`.`,
    );
  });
}

/**
 * Whether a later argument is picked from inside this one (`articles show LIST ARTICLE`): then a
 * list without articles leads nowhere and is not offered (here and in shell completion).
 */
export function leadsFurther(def: Pick<CommandDef, 'args'>, index: number): boolean {
  const kind = def.args![index].pick!;
  return def
    .args!.slice(index + 1)
    .some((a) => a.pick && Object.values((ID_PICKERS[a.pick] as IdPicker<unknown>).after ?? {}).includes(kind));
}

/** At most this many candidates are fetched (10 requests of 100); the search filters those. */
export const MAX_CHOICES = 1000;

/** The usage error for a left-out id argument (piped, CI, or no way to list the candidates). */
export function missingArgument(def: Pick<CommandDef, 'path' | 'args'>, index: number, why?: string): UsageError {
  const spec = def.args![index];
  const picker = ID_PICKERS[spec.pick!];
  const usage = `wcm ${def.path.join(' ')} ${def.args!.map((a) => a.name).join(' ')}`;
  return new UsageError(
    `Missing the \`${spec.name}\` argument (${spec.description}).${why ? ` ${why}` : ''}`,
    `Usage: \`${usage}\`. Find ids with \`${picker.lsCommand}\`; on a terminal, leaving it out offers a choice.`,
  );
}

/**
 * Fills the id arguments left out at the end of `args`: on a terminal, each from a searchable
 * choice; otherwise a usage error naming the first one missing. Arguments without `pick` are
 * left alone (commander already refuses missing required ones).
 */
export async function fillMissingIds(
  def: Pick<CommandDef, 'path' | 'args'>,
  args: string[],
  f: Factory,
): Promise<string[]> {
  const specs = def.args ?? [];
  const out = [...args];
  for (let i = out.length; i < specs.length && specs[i].pick; i++) {
    if (!f.io.canPrompt()) throw missingArgument(def, i);
    const chosen: Partial<Record<PickerName, string>> = {};
    specs.slice(0, i).forEach((s, j) => s.pick && (chosen[s.pick] = out[j]));
    out.push(await pickId(def, i, chosen, f));
  }
  return out;
}

async function pickId(
  def: Pick<CommandDef, 'path' | 'args'>,
  index: number,
  chosen: Partial<Record<PickerName, string>>,
  f: Factory,
): Promise<string> {
  const picker: IdPicker<unknown> = ID_PICKERS[def.args![index].pick!] as IdPicker<unknown>;
  let workspace: string;
  let client: Awaited<ReturnType<Factory['client']>>;
  try {
    workspace = await f.workspace();
    client = await f.client();
  } catch (err) {
    // A public command (`commerce pay`) may run with neither: say what was missing first.
    if (isReported(err))
      throw new CliError(
        `Missing the \`${def.args![index].name}\` argument, and no list to choose it from: ${err.message}`,
        exitCodeOf(err),
        err.hint,
      );
    throw err;
  }
  const params: Record<string, string> = { workspace };
  for (const [param, from] of Object.entries(picker.after ?? {})) params[param] = chosen[from]!;
  let items: unknown[] = [];
  let more = false;
  if (picker.itemsOf) {
    items = picker.itemsOf((await client.call(picker.operationId, { params })).body.data);
  } else {
    for await (const page of client.pages(picker.operationId as ListOperationId, { params, query: { limit: 100 } })) {
      items.push(...page.data);
      if (items.length >= MAX_CHOICES) {
        more = !!page.meta.next_cursor;
        break;
      }
    }
  }
  if (picker.choosable) items = items.filter((x) => picker.choosable!(x));
  if (picker.hasItems && leadsFurther(def, index)) items = items.filter((x) => picker.hasItems!(x));
  if (!items.length) {
    throw new CliError(
      `No ${picker.nouns} to choose from in workspace ${workspace}.`,
      EXIT.notFound,
      `Pass the \`${def.args![index].name}\` id yourself, or check the workspace (\`--workspace ID\`).`,
    );
  }
  if (more)
    f.io.stderr.write(
      `Showing the first ${items.length} ${picker.nouns}; type to filter them, or pass the id yourself.\n`,
    );
  const choices = items.map((x) => ({
    name: picker.label(terminalSafe(x)),
    value: picker.value(x),
    description: picker.description?.(terminalSafe(x)),
  }));
  const prompter = await f.io.prompter();
  return prompter.search({
    message: `Choose ${/^[aeiou]/.test(picker.noun) ? 'an' : 'a'} ${picker.noun}`,
    pageSize: 12,
    source: async (term) => {
      const t = term?.trim().toLowerCase();
      return t
        ? choices.filter(
            (c) =>
              c.name.toLowerCase().includes(t) ||
              c.value.toLowerCase().includes(t) ||
              !!c.description?.toLowerCase().includes(t),
          )
        : choices;
    },
  });
}
