import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import articlesLs from './ls.js';
import articlesShow from './show.js';
import articlesRestore from './restore.js';

/** `wcm articles`: its help line and its commands, in help order. */
export const articlesGroup = defineGroup({
  name: 'articles',
  summary: 'Knowledge articles: list, show with versions, restore a version',
  commands: [articlesLs, articlesShow, articlesRestore] as CommandDef[],
});
