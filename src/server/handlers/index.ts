import type { Handler } from '../context.js';
import { accountHandlers } from './account.js';
import { formHandlers } from './forms.js';
import { knowledgeHandlers } from './knowledge.js';
import { listingHandlers } from './listings.js';
import { pageHandlers } from './pages.js';
import { agentHandlers } from './agents.js';
import { commerceHandlers } from './commerce.js';
import { webhookHandlers } from './webhooks.js';
import { bookingHandlers } from './bookings.js';
import { threadHandlers } from './threads.js';
import { voiceHandlers } from './voice.js';
import { oauthHandlers } from './oauth.js';

/** Every implemented operation's handler, by operationId. Areas add their map here. */
export const handlers: Record<string, Handler> = Object.fromEntries([
  ...accountHandlers,
  ...listingHandlers,
  ...formHandlers,
  ...pageHandlers,
  ...knowledgeHandlers,
  ...commerceHandlers,
  ...agentHandlers,
  ...webhookHandlers,
  ...threadHandlers,
  ...bookingHandlers,
  ...voiceHandlers,
  ...oauthHandlers,
]);
