import type { CommandDef } from '../../src/cli/command.js';
import offersLs from './ls.js';

/** The `wcm offers` commands, in help order: a new verb is its file beside this one and one line here. */
export const offersCommands = [offersLs] as CommandDef[];
