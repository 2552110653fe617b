import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import offersLs from './ls.js';

/** `wcm offers`: its help line and its commands, in help order. */
export const offersGroup = defineGroup({
  name: 'offers',
  summary: 'Commerce offers: list them (pay one: `wcm commerce pay`)',
  commands: [offersLs] as CommandDef[],
});
