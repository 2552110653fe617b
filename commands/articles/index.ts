import type { CommandDef } from '../../src/cli/command.js';
import articlesLs from './ls.js';
import articlesShow from './show.js';
import articlesRestore from './restore.js';

/** The `wcm articles` commands, in help order: a new verb is its file beside this one and one line here. */
export const articlesCommands = [articlesLs, articlesShow, articlesRestore] as CommandDef[];
