import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import profileLs from './ls.js';
import profileRm from './rm.js';
import profileSetWorkspace from './set-workspace.js';
import profileUse from './use.js';

/** `wcm profile`: its help line and its commands, in help order. */
export const profileGroup = defineGroup({
  name: 'profile',
  summary: 'Saved targets (base URL, token, default workspace)',
  commands: [profileLs, profileUse, profileSetWorkspace, profileRm] as CommandDef[],
});
