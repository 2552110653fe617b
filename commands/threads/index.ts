import type { CommandDef } from '../../src/cli/command.js';
import threadsLs from './ls.js';
import threadsShow from './show.js';

/** The `wcm threads` commands, in help order: a new verb is its file beside this one and one line here. */
export const threadsCommands = [threadsLs, threadsShow] as CommandDef[];
