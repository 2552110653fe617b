import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import oauthAppsCreate from './apps/create.js';
import oauthAppsLs from './apps/ls.js';
import oauthAppsRm from './apps/rm.js';
import oauthGrantsLs from './grants/ls.js';
import oauthGrantsRevoke from './grants/revoke.js';

/** `wcm oauth`: its help line and its commands, in help order. */
export const oauthGroup = defineGroup({
  name: 'oauth',
  summary: 'OAuth applications of the workspace, and the grants you gave them',
  subgroups: {
    apps: 'Registered OAuth applications: create, list, delete',
    grants: 'What you authorized OAuth applications to do: list, revoke',
  },
  commands: [oauthAppsCreate, oauthAppsLs, oauthAppsRm, oauthGrantsLs, oauthGrantsRevoke] as CommandDef[],
});
