import type { CommandDef } from '../../src/cli/command.js';
import formsLs from './ls.js';
import formsShow from './show.js';
import formsUpdate from './update.js';

/** The `wcm forms` commands, in help order: a new verb is its file beside this one and one line here. */
export const formsCommands = [formsLs, formsShow, formsUpdate] as CommandDef[];
