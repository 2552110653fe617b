import type { CommandDef } from '../../src/cli/command.js';
import listsCreate from './create.js';
import listsLs from './ls.js';
import listsShow from './show.js';
import listsTemplates from './templates.js';

/** The `wcm lists` commands, in help order: a new verb is its file beside this one and one line here. */
export const listsCommands = [listsCreate, listsLs, listsShow, listsTemplates] as CommandDef[];
