import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { UsageError } from '../../src/cli/errors.js';
import { runList } from '../../src/cli/list.js';
import { relativeTime } from '../../src/cli/output.js';

interface LsOptions extends ListFlags {
  published?: boolean;
  unpublished?: boolean;
}

export default defineCommand<LsOptions>({
  path: ['pages', 'ls'],
  output: 'listPages',
  summary: "List the workspace's hosted pages, most recently updated first",
  description:
    'Piped output is tab-separated: id, name, slug, published (true/false), updated_at (empty if never updated).',
  list: true,
  options: [
    { flags: '--published', description: 'only published pages' },
    { flags: '--unpublished', description: 'only unpublished pages' },
  ],
  examples: ['wcm pages ls', 'wcm pages ls --unpublished', 'wcm pages ls --published --all --json | jq -r ".[].slug"'],
  async run(opts, f) {
    if (opts.published && opts.unpublished)
      throw new UsageError(
        '`--published` and `--unpublished` cannot be used together.',
        'Pass one of them, or neither for every page.',
      );
    const published = opts.published ? 'true' : opts.unpublished ? 'false' : undefined;
    const workspace = await f.workspace();
    return runList(
      f,
      opts,
      'listPages',
      { params: { workspace }, query: { published } },
      [
        { header: 'ID', value: (r) => r.id },
        { header: 'NAME', value: (r) => r.name, maxWidth: 40 },
        { header: 'SLUG', value: (r) => r.slug, maxWidth: 30 },
        {
          header: 'PUBLISHED',
          value: (r) => String(r.published),
          pretty: (r, s) => (r.published ? s.green('published') : s.yellow('unpublished')),
        },
        { header: 'UPDATED', value: (r) => r.updated_at ?? '', pretty: (r, s) => s.dim(relativeTime(r.updated_at)) },
      ],
      published === undefined ? 'pages' : `${published === 'true' ? 'published' : 'unpublished'} pages`,
    );
  },
});
