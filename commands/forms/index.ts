import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import formsLs from './ls.js';
import formsShow from './show.js';
import formsUpdate from './update.js';

/** `wcm forms`: its help line and its commands, in help order. */
export const formsGroup = defineGroup({
  name: 'forms',
  summary: 'Forms: list, show one, update (members replace, objects merge)',
  commands: [formsLs, formsShow, formsUpdate] as CommandDef[],
});
