import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { workspaceList } from '../../src/cli/list.js';

export default defineCommand<ListFlags>({
  path: ['knowledge', 'ls'],
  output: 'listKnowledgeLists',
  summary: "List the workspace's knowledge lists, by name (their ids go to `wcm articles ls LIST`)",
  description: 'Piped output is tab-separated: id, name, article count.',
  list: true,
  examples: ['wcm knowledge ls', 'wcm articles ls "$(wcm knowledge ls --json | jq -r ".[0].id")"'],
  run: workspaceList(
    'listKnowledgeLists',
    [
      { header: 'ID', value: (r) => r.id },
      { header: 'NAME', value: (r) => r.name, maxWidth: 50 },
      { header: 'ARTICLES', value: (r) => String(r.article_count) },
    ],
    'knowledge lists',
  ),
});
