import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import formsLs from './ls.js';
import formsShow from './show.js';
import formsUpdate from './update.js';

/**
 * `wcm forms`: its help line and its commands, in help order (a new verb is its file beside this one
 * and one entry here; when the help line names the verbs, it names the new one too).
 */
export const formsGroup = defineGroup({
  name: 'forms',
  summary: 'Forms: list, show one, update (members replace, objects merge)',
  commands: [formsLs, formsShow, formsUpdate] as CommandDef[],
});
