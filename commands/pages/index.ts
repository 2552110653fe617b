import type { CommandDef } from '../../src/cli/command.js';
import pagesLs from './ls.js';
import pagesShow from './show.js';
import pagesUpdate from './update.js';

/** The `wcm pages` commands, in help order: a new verb is its file beside this one and one line here. */
export const pagesCommands = [pagesLs, pagesShow, pagesUpdate] as CommandDef[];
