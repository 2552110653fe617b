import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import bookingsLs from './ls.js';

/** `wcm bookings`: its help line and its commands, in help order. */
export const bookingsGroup = defineGroup({
  name: 'bookings',
  summary: 'Bookings: list by status and date',
  commands: [bookingsLs] as CommandDef[],
});
