import { defineCommand, type ListFlags } from '../../../src/cli/command.js';
import { workspaceList } from '../../../src/cli/list.js';

export default defineCommand<ListFlags>({
  path: ['oauth', 'apps', 'ls'],
  output: 'listOAuthApps',
  summary: 'List the OAuth applications registered in the workspace, newest first',
  description: 'Piped output is tab-separated: client id, name, type, redirect URIs (space-separated), created at.',
  list: true,
  examples: ['wcm oauth apps ls', 'wcm oauth apps ls --json | jq -r ".[].client_id"'],
  run: workspaceList(
    'listOAuthApps',
    [
      { header: 'CLIENT ID', value: (r) => r.client_id },
      { header: 'NAME', value: (r) => r.name, maxWidth: 32 },
      { header: 'TYPE', value: (r) => r.type },
      { header: 'REDIRECT URIS', value: (r) => r.redirect_uris.join(' '), maxWidth: 60 },
      { header: 'CREATED', value: (r) => r.created_at },
    ],
    'OAuth applications',
  ),
});
