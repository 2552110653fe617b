import type { CommandDef } from '../../src/cli/command.js';
import profileLs from './ls.js';
import profileRm from './rm.js';
import profileSetWorkspace from './set-workspace.js';
import profileUse from './use.js';

/** The `wcm profile` commands, in help order: a new verb is its file beside this one and one line here. */
export const profileCommands = [profileLs, profileUse, profileSetWorkspace, profileRm] as CommandDef[];
