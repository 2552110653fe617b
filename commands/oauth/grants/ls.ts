import { defineCommand, type ListFlags } from '../../../src/cli/command.js';
import { runList } from '../../../src/cli/list.js';

export default defineCommand<ListFlags>({
  path: ['oauth', 'grants', 'ls'],
  output: 'listOAuthGrants',
  summary: 'List what you authorized OAuth applications to do (yours, whichever workspace), newest first',
  description:
    'Piped output is tab-separated: grant id, application, abilities, workspaces, audience, created at (lists space-separated).',
  list: true,
  examples: [
    'wcm oauth grants ls',
    'wcm oauth grants ls --json | jq -r ".[] | select(.audience == \\"wcm-mcp\\") | .id"',
  ],
  async run(opts, f) {
    return runList(
      f,
      opts,
      'listOAuthGrants',
      {},
      [
        { header: 'ID', value: (r) => r.id },
        { header: 'APPLICATION', value: (r) => r.app_name, maxWidth: 32 },
        { header: 'ABILITIES', value: (r) => r.abilities.join(' '), maxWidth: 48 },
        { header: 'WORKSPACES', value: (r) => r.workspace_ids.join(' '), maxWidth: 40 },
        { header: 'AUDIENCE', value: (r) => r.audience },
        { header: 'CREATED', value: (r) => r.created_at },
      ],
      'OAuth grants',
    );
  },
});
