import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { workspaceList } from '../../src/cli/list.js';
import { relativeTime } from '../../src/cli/output.js';

export default defineCommand<ListFlags>({
  path: ['forms', 'ls'],
  output: 'listForms',
  summary: "List the workspace's forms, most recently updated first",
  description: 'Piped output is tab-separated: id, name, field count, updated_at (empty if never updated).',
  list: true,
  examples: ['wcm forms ls', 'wcm forms ls --all --json | jq -r \'.[] | select(.name == "Contact") | .id\''],
  run: workspaceList(
    'listForms',
    [
      { header: 'ID', value: (r) => r.id },
      { header: 'NAME', value: (r) => r.name, maxWidth: 50 },
      { header: 'FIELDS', value: (r) => String(r.field_count) },
      { header: 'UPDATED', value: (r) => r.updated_at ?? '', pretty: (r, s) => s.dim(relativeTime(r.updated_at)) },
    ],
    'forms',
  ),
});
