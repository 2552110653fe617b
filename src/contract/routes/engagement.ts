import type { Route } from '../route.js';

/** The engagement area's operations, zod-free (the CLI finds its URLs without loading a schema); schemas in `../engagement.ts`. */
export const engagementRoutes = {
  listThreads: {
    method: 'GET', path: '/workspaces/{workspace}/threads', tag: 'Conversations', summary: 'List contact-centric multichannel threads (newest first)', access: 'bearer', ability: 'engagements:read', status: 200, list: true, notFound: {workspace: 'workspace_not_found'},
  },
  listInboxThreads: {
    method: 'GET', path: '/workspaces/{workspace}/inbox-threads', tag: 'Engagement inbox', summary: 'List threads (compatibility alias of listThreads)', access: 'bearer', ability: 'engagements:read', status: 200, list: true, aliasOf: 'listThreads', notFound: {workspace: 'workspace_not_found'},
  },
  getThread: {
    method: 'GET', path: '/workspaces/{workspace}/threads/{thread}', tag: 'Conversations', summary: 'Get one thread with its messages', access: 'bearer', ability: 'engagements:read', status: 200, extension: true, notFound: {workspace: 'workspace_not_found', thread: 'thread_not_found'},
  },
  listBookings: {
    method: 'GET', path: '/workspaces/{workspace}/bookings', tag: 'Booking', summary: 'List bookings (soonest first)', access: 'bearer', ability: 'engagements:read', status: 200, list: true, notFound: {workspace: 'workspace_not_found'},
  },
  listVoiceInteractions: {
    method: 'GET', path: '/workspaces/{workspace}/voice-interactions', tag: 'Telephony', summary: 'List recent inbound calls and web voice messages (newest first)', access: 'bearer', ability: 'engagements:read', status: 200, list: true, notFound: {workspace: 'workspace_not_found'},
  },
} as const satisfies Record<string, Route>;
