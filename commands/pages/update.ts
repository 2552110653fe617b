import { defineCommand } from '../../src/cli/command.js';
import { UsageError } from '../../src/cli/errors.js';
import type { Factory } from '../../src/cli/factory.js';
import type { Prompter } from '../../src/cli/io.js';
import { errStyle, printJson } from '../../src/cli/output.js';
import { oneStdinReader, readBodyFile } from '../../src/cli/body-file.js';
import { applySet, withSetHints } from '../../src/cli/set-flag.js';
import { printPage } from '../../src/cli/records.js';
import type { Page } from '../../src/contract/types.js';
import { SCHEMA_TYPES } from '../../src/contract/enums.js';

interface UpdateOptions {
  name?: string;
  slug?: string;
  publish?: boolean;
  unpublish?: boolean;
  set?: string[];
  file?: string;
}

type TextKey =
  'name' | 'slug' | 'display_name' | 'bio' | 'seo_title' | 'seo_description' | 'aeo_summary' | 'agent_instructions';

/**
 * Asks for each page field, pre-filled with its current value, and returns only what changed. An
 * emptied optional text becomes `null` (cleared).
 */
export async function promptPageChanges(
  p: Prompter,
  page: Page,
  rules: { slug: RegExp; schemaTypes: readonly string[] },
): Promise<Record<string, unknown>> {
  const changes: Record<string, unknown> = {};
  const text = async (key: TextKey, message: string, max: number, check?: (v: string) => true | string) => {
    const current = page[key] ?? '';
    const required = key === 'name' || key === 'slug';
    const v = await p.input({
      message,
      default: current,
      validate: (s) => {
        if (required && !s) return `${message} is required.`;
        if (s.length > max) return `At most ${max} characters (this is ${s.length}).`;
        return check ? check(s) : true;
      },
    });
    if (v === current) return;
    changes[key] = v === '' && !required ? null : v;
  };
  await text('name', 'Name', 255);
  await text('slug', 'Slug', 255, (s) => (rules.slug.test(s) ? true : 'Use lowercase letters, digits, _ and - only.'));
  await text('display_name', 'Display name', 255);
  await text('bio', 'Bio', 500);
  const published = await p.confirm({ message: 'Published?', default: page.published });
  if (published !== page.published) changes.published = published;
  if (await p.confirm({ message: 'Edit SEO, agent and chat settings too?', default: false })) {
    await text('seo_title', 'SEO title', 255);
    await text('seo_description', 'SEO description', 500);
    await text('aeo_summary', 'AEO summary', 2000);
    await text('agent_instructions', 'Agent instructions', 2000);
    const schemaType = await p.select({
      message: 'Schema type',
      choices: rules.schemaTypes.map((t) => ({ name: t, value: t })),
      default: page.schema_type,
    });
    if (schemaType !== page.schema_type) changes.schema_type = schemaType;
    const greeting = page.chat.greeting ?? '';
    const g = await p.input({
      message: 'Chat greeting',
      default: greeting,
      validate: (s) => (s.length > 500 ? `At most 500 characters (this is ${s.length}).` : true),
    });
    if (g !== greeting) changes.chat = { greeting: g === '' ? null : g };
  }
  return changes;
}

export default defineCommand<UpdateOptions>({
  path: ['pages', 'update'],
  output: 'updatePage',
  summary: 'Update a page; on a terminal with no change flags, edit it field by field',
  description:
    'Members sent replace stored ones; members not sent stay. `chat` merges key by key (JSON Merge Patch).\n' +
    '--set takes dotted keys into objects; its values are typed as `wcm api -F` types them: true, false, null and\n' +
    'numbers are JSON, a quoted "…", […] or {…} is JSON, @file is the file\'s text (@- standard input), anything else\n' +
    'a string (docs/cli.md, "Typed values"). --file - reads the body from standard input. Order of precedence:\n' +
    '--file, then --set, then --name/--slug/--publish.',
  args: [{ name: 'PAGE', description: 'page id', required: true, pick: 'page' }],
  examples: [
    'wcm pages update 71184361-1989-42ed-9156-e4650146c0d5 --publish',
    'wcm pages update 71184361-1989-42ed-9156-e4650146c0d5 --name "Home" --slug home --set bio=@bio.txt',
    'wcm pages update 71184361-1989-42ed-9156-e4650146c0d5 --set chat.greeting="Hi there" --set robots_index=false',
    'wcm pages update 71184361-1989-42ed-9156-e4650146c0d5 --set seo_title=null  # clears it',
    'wcm pages update 71184361-1989-42ed-9156-e4650146c0d5 --file page.json',
    'wcm pages update 71184361-1989-42ed-9156-e4650146c0d5  # on a terminal: prompts, pre-filled',
  ],
  options: [
    { flags: '--name <name>', description: 'page name (max 255)' },
    { flags: '--slug <slug>', description: 'URL slug: lowercase letters, digits, _ and - (max 255)' },
    { flags: '--publish', description: 'publish the page (published: true)' },
    { flags: '--unpublish', description: 'unpublish the page (published: false)' },
    {
      flags: '--set <key=value>',
      description: 'set a member; dotted keys reach into objects, e.g. chat.greeting=Hi (repeatable)',
      repeatable: true,
    },
    {
      flags: '--file <file>',
      description: 'JSON object: the request body, merged with the other flags; - reads stdin',
    },
  ],
  async run(opts, f) {
    const [pageId] = opts.args;
    if (opts.publish && opts.unpublish)
      throw new UsageError('`--publish` and `--unpublish` cannot be used together.', 'Pass one of them.');
    const workspace = await f.workspace();
    const flagged =
      opts.file !== undefined ||
      !!opts.set?.length ||
      opts.name !== undefined ||
      opts.slug !== undefined ||
      !!opts.publish ||
      !!opts.unpublish;
    let body: Record<string, unknown>;
    if (flagged) {
      const sets = opts.set ?? [];
      const { readsStdin, readStdinText } = await import('../../src/cli/fields.js');
      oneStdinReader([opts.file === '-' && '--file -', readsStdin(sets) && '--set …=@-']);
      body = opts.file ? await readBodyFile(f, opts.file) : {};
      const stdin = readsStdin(sets) ? await readStdinText(f.io, '--set') : undefined;
      for (const s of sets) applySet(body, s, { cwd: f.cwd, stdin });
      if (opts.name !== undefined) body.name = opts.name;
      if (opts.slug !== undefined) body.slug = opts.slug;
      if (opts.publish) body.published = true;
      if (opts.unpublish) body.published = false;
    } else {
      if (!f.io.canPrompt()) {
        throw new UsageError(
          'Nothing to change.',
          'Pass --name, --slug, --publish, --unpublish, --set key=value or --file BODY.json (prompts need a terminal).',
        );
      }
      body = await promptChanges(f, workspace, pageId);
      if (!Object.keys(body).length) {
        f.io.stderr.write('Nothing changed; nothing was sent.\n');
        return 0;
      }
    }
    const client = await f.client();
    const res = await client.call('updatePage', { params: { workspace, page: pageId }, body }).catch((err: unknown) => {
      throw withSetHints(err, opts.set ?? []);
    });
    if (f.globals.json) printJson(f.io.stdout, res.body.data);
    else await printPage(f, res.body.data);
    return 0;
  },
});

async function promptChanges(f: Factory, workspace: string, pageId: string): Promise<Record<string, unknown>> {
  const client = await f.client();
  const current = (await client.call('getPage', { params: { workspace, page: pageId } })).body.data;
  const { SLUG_PATTERN } = await import('../../src/api/pages/schemas.js');
  const s = await errStyle(f.io);
  f.io.stderr.write(s.dim('Enter keeps a value; Backspace then Enter clears it; Tab edits it.\n'));
  return promptPageChanges(await f.io.prompter(), current, { slug: SLUG_PATTERN, schemaTypes: SCHEMA_TYPES });
}
