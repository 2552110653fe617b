import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { runList } from '../../src/cli/list.js';

export default defineCommand<ListFlags>({
  path: ['agents', 'ls'],
  output: 'listAgents',
  summary: "List the workspace's agents, by name (ids go to `wcm agents opened AGENT`)",
  description: 'Piped output is tab-separated: id, name.',
  list: true,
  examples: ['wcm agents ls', 'wcm agents ls --json'],
  async run(opts, f) {
    const workspace = await f.workspace();
    return runList(
      f,
      opts,
      'listAgents',
      { params: { workspace } },
      [
        { header: 'ID', value: (r) => r.id },
        { header: 'NAME', value: (r) => r.name, maxWidth: 60 },
      ],
      'agents',
    );
  },
});
