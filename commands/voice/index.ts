import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import voiceLs from './ls.js';

/** `wcm voice`: its help line and its commands, in help order. */
export const voiceGroup = defineGroup({
  name: 'voice',
  summary: 'Inbound calls and voice messages: list',
  commands: [voiceLs] as CommandDef[],
});
