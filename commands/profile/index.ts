import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import profileLs from './ls.js';
import profileRm from './rm.js';
import profileSetWorkspace from './set-workspace.js';
import profileUse from './use.js';

/**
 * `wcm profile`: its help line and its commands, in help order (a new verb is its file beside this one
 * and one entry here; when the help line names the verbs, it names the new one too).
 */
export const profileGroup = defineGroup({
  name: 'profile',
  summary: 'Saved targets (base URL, token, default workspace)',
  commands: [profileLs, profileUse, profileSetWorkspace, profileRm] as CommandDef[],
});
