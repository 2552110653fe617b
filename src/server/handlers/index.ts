import type { Handler } from '../context.js';
import { accountHandlers } from './account.js';
import { bookingHandlers } from './bookings.js';
import { listingHandlers } from './listings.js';
import { threadHandlers } from './threads.js';
import { voiceHandlers } from './voice.js';

/** Every implemented operation's handler, by operationId. Areas add their map here. */
export const handlers: Record<string, Handler> = Object.fromEntries([
  ...accountHandlers,
  ...listingHandlers,
  ...threadHandlers,
  ...bookingHandlers,
  ...voiceHandlers,
]);
