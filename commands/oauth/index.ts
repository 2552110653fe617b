import type { CommandDef } from '../../src/cli/command.js';
import oauthAppsCreate from './apps/create.js';
import oauthAppsLs from './apps/ls.js';
import oauthAppsRm from './apps/rm.js';
import oauthGrantsLs from './grants/ls.js';
import oauthGrantsRevoke from './grants/revoke.js';

/** The `wcm oauth` commands, in help order: a new verb is its file beside this one and one line here. */
export const oauthCommands = [
  oauthAppsCreate,
  oauthAppsLs,
  oauthAppsRm,
  oauthGrantsLs,
  oauthGrantsRevoke,
] as CommandDef[];
