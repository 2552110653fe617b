import type { CommandDef } from '../../src/cli/command.js';
import knowledgeLs from './ls.js';

/** The `wcm knowledge` commands, in help order: a new verb is its file beside this one and one line here. */
export const knowledgeCommands = [knowledgeLs] as CommandDef[];
