import type { Handler } from '../context.js';
import { accountHandlers } from './account.js';
import { agentHandlers } from './agents.js';
import { commerceHandlers } from './commerce.js';
import { listingHandlers } from './listings.js';
import { webhookHandlers } from './webhooks.js';

/** Every implemented operation's handler, by operationId. Areas add their map here. */
export const handlers: Record<string, Handler> = Object.fromEntries([
  ...accountHandlers,
  ...listingHandlers,
  ...commerceHandlers,
  ...agentHandlers,
  ...webhookHandlers,
]);
