import { defineCommand } from '../../src/cli/command.js';
import { printFields, printJson, printRows, relativeTime } from '../../src/cli/output.js';
import type { ArticleVersion } from '../../src/contract/types.js';

export default defineCommand({
  path: ['articles', 'show'],
  output: 'getArticle',
  summary: 'Show an article and its versions',
  description:
    'On a terminal: the article, then a table of versions. Piped: one tab-separated row per version\n(number, published, restored_from, created_at, title), oldest first.',
  args: [
    { name: 'LIST', description: 'knowledge list id', required: true, pick: 'knowledgeList' },
    { name: 'ARTICLE', description: 'article id', required: true, pick: 'article' },
  ],
  examples: [
    'wcm articles show 34245e7c-3e2f-40d4-838c-7d330fa624ba c8662610-465b-432d-bc0c-117f751f478a',
    'wcm articles show 34245e7c-3e2f-40d4-838c-7d330fa624ba c8662610-465b-432d-bc0c-117f751f478a --json versions',
  ],
  async run(opts, f) {
    const [list, article] = opts.args;
    const workspace = await f.workspace();
    const client = await f.client();
    const a = (await client.call('getArticle', { params: { workspace, list, article } })).body.data;
    if (f.globals.json) {
      printJson(f.io.stdout, a);
      return 0;
    }
    if (f.io.isStdoutTTY) {
      await printFields(f.io, [
        ['id', a.id],
        ['title', a.title],
        ['status', a.status],
        ['current', `v${a.current_version}`],
        ['published', a.published_version === null ? null : `v${a.published_version}`],
      ]);
      f.io.stdout.write('\n');
    }
    await printRows<ArticleVersion>(f.io, a.versions, [
      {
        header: 'VERSION',
        value: (v) => String(v.number),
        pretty: (v, s) => `v${v.number}${v.number === a.current_version ? s.cyan(' current') : ''}`,
      },
      {
        header: 'PUBLISHED',
        value: (v) => String(v.published),
        pretty: (v, s) => (v.number === a.published_version ? s.green('live') : v.published ? 'yes' : s.dim('no')),
      },
      {
        header: 'RESTORED FROM',
        value: (v) => (v.restored_from === null ? '' : String(v.restored_from)),
        pretty: (v, s) => (v.restored_from === null ? s.dim('—') : `v${v.restored_from}`),
      },
      { header: 'CREATED', value: (v) => v.created_at, pretty: (v, s) => s.dim(relativeTime(v.created_at)) },
      { header: 'TITLE', value: (v) => v.title, maxWidth: 50 },
    ]);
    return 0;
  },
});
