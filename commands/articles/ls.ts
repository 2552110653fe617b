import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { runList } from '../../src/cli/list.js';
import { relativeTime } from '../../src/cli/output.js';
export type { ArticleSummary } from '../../src/contract/types.js';

export default defineCommand<ListFlags>({
  path: ['articles', 'ls'],
  output: 'listArticles',
  summary: 'List the articles of a knowledge list, most recently updated first',
  description:
    'Piped output is tab-separated: id, title, status, current version, published version (empty if none),\n' +
    'updated_at.',
  args: [{ name: 'LIST', description: 'knowledge list id', required: true, pick: 'knowledgeList' }],
  list: true,
  examples: [
    'wcm articles ls 34245e7c-3e2f-40d4-838c-7d330fa624ba',
    'wcm articles ls 34245e7c-3e2f-40d4-838c-7d330fa624ba --all --jq \'.[] | select(.status == "draft") | .title\'',
  ],
  async run(opts, f) {
    const workspace = await f.workspace();
    return runList(
      f,
      opts,
      'listArticles',
      { params: { workspace, list: opts.args[0] } },
      [
        { header: 'ID', value: (r) => r.id },
        { header: 'TITLE', value: (r) => r.title, maxWidth: 50 },
        {
          header: 'STATUS',
          value: (r) => r.status,
          pretty: (r, s) => (r.status === 'published' ? s.green(r.status) : s.yellow(r.status)),
        },
        { header: 'CURRENT', value: (r) => String(r.current_version), pretty: (r) => `v${r.current_version}` },
        {
          header: 'PUBLISHED',
          value: (r) => (r.published_version === null ? '' : String(r.published_version)),
          pretty: (r, s) => (r.published_version === null ? s.dim('—') : `v${r.published_version}`),
        },
        { header: 'UPDATED', value: (r) => r.updated_at, pretty: (r, s) => s.dim(relativeTime(r.updated_at)) },
      ],
      'articles',
    );
  },
});
