import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import localImport from './import.js';
import localExport from './export.js';
import localOrders from './orders.js';
import localToken from './token.js';
import localEvents from './events.js';
import localReset from './reset.js';
import localSnapshotSave from './snapshot/save.js';
import localSnapshotRestore from './snapshot/restore.js';
import localSnapshotLs from './snapshot/ls.js';
import localSnapshotRm from './snapshot/rm.js';
import localFaultsLs from './faults/ls.js';
import localFaultsSet from './faults/set.js';
import localFaultsAdd from './faults/add.js';
import localFaultsClear from './faults/clear.js';
import localClock from './clock.js';
import localClockSet from './clock/set.js';
import localClockClear from './clock/clear.js';

/** `wcm local`: its help line and its commands, in help order. */
export const localGroup = defineGroup({
  name: 'local',
  summary:
    'The local server: import, export, orders, events (data file); reset, snapshot, faults, clock (running server)',
  subgroups: {
    snapshot: 'Named snapshots of the running local server: save, restore, ls, rm',
    faults: 'Injected failures and delays of the running local server: ls, set, add, clear',
    clock: "The running local server's clock: show it, set, clear",
  },
  commands: [
    localImport,
    localExport,
    localOrders,
    localToken,
    localEvents,
    localReset,
    localSnapshotSave,
    localSnapshotRestore,
    localSnapshotLs,
    localSnapshotRm,
    localFaultsLs,
    localFaultsSet,
    localFaultsAdd,
    localFaultsClear,
    // Before its subcommands: `wcm local clock` alone shows the clock, so the group is this command.
    localClock,
    localClockSet,
    localClockClear,
  ] as CommandDef[],
});
