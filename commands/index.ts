import type { CommandDef } from '../src/cli/command.js';
import articlesLs from './articles/ls.js';
import articlesRestore from './articles/restore.js';
import articlesShow from './articles/show.js';
import formsShow from './forms/show.js';
import formsLs from './forms/ls.js';
import pagesLs from './pages/ls.js';
import knowledgeLs from './knowledge/ls.js';
import offersLs from './offers/ls.js';
import mcp from './mcp.js';
import logs from './logs.js';
import completion from './completion.js';
import localReset from './local/reset.js';
import localSnapshotSave from './local/snapshot/save.js';
import localSnapshotRestore from './local/snapshot/restore.js';
import localSnapshotLs from './local/snapshot/ls.js';
import localSnapshotRm from './local/snapshot/rm.js';
import localFaultsSet from './local/faults/set.js';
import localFaultsClear from './local/faults/clear.js';
import localFaultsAdd from './local/faults/add.js';
import localFaultsLs from './local/faults/ls.js';
import localClock from './local/clock.js';
import localClockSet from './local/clock/set.js';
import localClockClear from './local/clock/clear.js';
import oauthAppsCreate from './oauth/apps/create.js';
import oauthAppsLs from './oauth/apps/ls.js';
import oauthAppsRm from './oauth/apps/rm.js';
import oauthGrantsLs from './oauth/grants/ls.js';
import oauthGrantsRevoke from './oauth/grants/revoke.js';
import agentsLs from './agents/ls.js';
import listsShow from './lists/show.js';
import formsUpdate from './forms/update.js';
import agentsOpened from './agents/opened.js';
import commercePay from './commerce/pay.js';
import bookingsLs from './bookings/ls.js';
import api from './api.js';
import authLogin from './auth/login.js';
import authLogout from './auth/logout.js';
import authStatus from './auth/status.js';
import authToken from './auth/token.js';
import listsCreate from './lists/create.js';
import listsLs from './lists/ls.js';
import listsTemplates from './lists/templates.js';
import localEvents from './local/events.js';
import localExport from './local/export.js';
import localImport from './local/import.js';
import localOrders from './local/orders.js';
import localToken from './local/token.js';
import openapi from './openapi.js';
import pagesShow from './pages/show.js';
import pagesUpdate from './pages/update.js';
import paymentsSimulate from './payments/simulate.js';
import seed from './seed.js';
import profileLs from './profile/ls.js';
import profileUse from './profile/use.js';
import serve from './serve.js';
import threadsLs from './threads/ls.js';
import threadsShow from './threads/show.js';
import voiceLs from './voice/ls.js';
import open from './open.js';

/**
 * Every command, in help order. Definitions are light: each loads what it needs inside `run`, so
 * `wcm --help` loads none of the server, the store, stripe or the prompts.
 */
export const commands: CommandDef[] = [
  serve,
  authLogin,
  authStatus,
  authToken,
  authLogout,
  profileLs,
  profileUse,
  listsCreate,
  listsLs,
  listsShow,
  listsTemplates,
  formsLs,
  formsShow,
  formsUpdate,
  pagesLs,
  pagesShow,
  pagesUpdate,
  knowledgeLs,
  articlesLs,
  articlesShow,
  articlesRestore,
  threadsLs,
  threadsShow,
  bookingsLs,
  voiceLs,
  open,
  localImport,
  localExport,
  localOrders,
  localToken,
  localEvents,
  offersLs,
  commercePay,
  agentsLs,
  agentsOpened,
  paymentsSimulate,
  oauthAppsCreate,
  oauthAppsLs,
  oauthAppsRm,
  oauthGrantsLs,
  oauthGrantsRevoke,
  openapi,
  seed,
  api,
  mcp,
  logs,
  completion,
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
] as CommandDef[];
