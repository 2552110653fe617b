import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { workspaceList } from '../../src/cli/list.js';

export default defineCommand<ListFlags>({
  path: ['lists', 'ls'],
  output: 'listListings',
  summary: "List the workspace's listings, newest first",
  description: 'Piped output is tab-separated: id, title, dashboard URL.',
  list: true,
  examples: ['wcm lists ls', 'wcm lists ls --all --json | jq length'],
  run: workspaceList(
    'listListings',
    [
      { header: 'ID', value: (r) => r.id },
      { header: 'TITLE', value: (r) => r.title, maxWidth: 60 },
      { header: 'DASHBOARD', value: (r) => r.dashboard_url, pretty: (r, s) => s.dim(r.dashboard_url) },
    ],
    'listings',
  ),
});
