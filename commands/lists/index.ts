import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import listsCreate from './create.js';
import listsLs from './ls.js';
import listsShow from './show.js';
import listsTemplates from './templates.js';

/** `wcm lists`: its help line and its commands, in help order. */
export const listsGroup = defineGroup({
  name: 'lists',
  summary: 'Listings: create, list, show one, templates',
  commands: [listsCreate, listsLs, listsShow, listsTemplates] as CommandDef[],
});
