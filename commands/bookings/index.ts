import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import bookingsLs from './ls.js';

/**
 * `wcm bookings`: its help line and its commands, in help order (a new verb is its file beside this one
 * and one entry here; when the help line names the verbs, it names the new one too).
 */
export const bookingsGroup = defineGroup({
  name: 'bookings',
  summary: 'Bookings: list by status and date',
  commands: [bookingsLs] as CommandDef[],
});
