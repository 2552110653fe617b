import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { workspaceList } from '../../src/cli/list.js';

export default defineCommand<ListFlags>({
  path: ['agents', 'ls'],
  output: 'listAgents',
  summary: "List the workspace's agents, by name (ids go to `wcm agents opened AGENT`)",
  description: 'Piped output is tab-separated: id, name.',
  list: true,
  examples: ['wcm agents ls', 'wcm agents ls --json'],
  run: workspaceList(
    'listAgents',
    [
      { header: 'ID', value: (r) => r.id },
      { header: 'NAME', value: (r) => r.name, maxWidth: 60 },
    ],
    'agents',
  ),
});
