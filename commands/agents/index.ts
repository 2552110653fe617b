import type { CommandDef } from '../../src/cli/command.js';
import agentsLs from './ls.js';
import agentsOpened from './opened.js';

/** The `wcm agents` commands, in help order: a new verb is its file beside this one and one line here. */
export const agentsCommands = [agentsLs, agentsOpened] as CommandDef[];
