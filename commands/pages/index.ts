import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import pagesLs from './ls.js';
import pagesShow from './show.js';
import pagesUpdate from './update.js';

/** `wcm pages`: its help line and its commands, in help order. */
export const pagesGroup = defineGroup({
  name: 'pages',
  summary: 'Hosted pages: list, show one, update, publish or unpublish',
  commands: [pagesLs, pagesShow, pagesUpdate] as CommandDef[],
});
