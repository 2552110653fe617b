import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import offersLs from './ls.js';

/**
 * `wcm offers`: its help line and its commands, in help order (a new verb is its file beside this one
 * and one entry here; when the help line names the verbs, it names the new one too).
 */
export const offersGroup = defineGroup({
  name: 'offers',
  summary: 'Commerce offers: list them (pay one: `wcm commerce pay`)',
  commands: [offersLs] as CommandDef[],
});
