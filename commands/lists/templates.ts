import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { runList } from '../../src/cli/list.js';

export default defineCommand<ListFlags>({
  path: ['lists', 'templates'],
  output: 'listListingTemplates',
  summary: 'List the listing templates of the setup catalog',
  description: 'Piped output is tab-separated: slug, name, description.',
  list: true,
  async run(opts, f) {
    return runList(
      f,
      opts,
      'listListingTemplates',
      {},
      [
        { header: 'SLUG', value: (r) => r.slug, pretty: (r, s) => s.bold(r.slug) },
        { header: 'NAME', value: (r) => r.name },
        { header: 'DESCRIPTION', value: (r) => r.description },
      ],
      'templates',
    );
  },
});
