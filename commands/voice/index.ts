import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import voiceLs from './ls.js';

/**
 * `wcm voice`: its help line and its commands, in help order (a new verb is its file beside this one
 * and one entry here; when the help line names the verbs, it names the new one too).
 */
export const voiceGroup = defineGroup({
  name: 'voice',
  summary: 'Inbound calls and voice messages: list',
  commands: [voiceLs] as CommandDef[],
});
