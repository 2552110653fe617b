import { z } from 'zod';
import { BOOKING_STATUSES, CHANNELS, THREAD_VIEWS, VOICE_KINDS, VOICE_STATUSES } from '../../contract/enums.js';
import { noQuery, PagingQuery, Timestamp, Uuid, wsParam } from '../../contract/common.js';
import type { OperationId } from '../../contract/table.js';
import type { OperationSchemas } from '../../contract/route.js';

export const ThreadsQuery = z.strictObject({
  view: z.enum(THREAD_VIEWS).default('inbox').meta({
    description:
      'inbox: open threads; unread: open and unread; starred: starred, open or closed; closed: closed threads.',
  }),
  channel: z.enum(CHANNELS).optional().meta({ description: 'Only threads with at least one message on this channel.' }),
  q: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'Case-insensitive match on contact name, email, subject and last message.' }),
  ...PagingQuery,
});

export const Contact = z.object({
  id: Uuid,
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
});

export const ThreadSummary = z
  .object({
    id: Uuid,
    contact: Contact,
    channels: z
      .array(z.enum(CHANNELS))
      .meta({ description: 'Distinct channels of its messages, in the order web_chat, email, whatsapp, form.' }),
    subject: z.string().nullable(),
    status: z.enum(['open', 'closed']),
    unread: z.boolean(),
    starred: z.boolean(),
    last_message_at: Timestamp.nullable(),
    last_message_preview: z.string().nullable().meta({
      description: 'The last message on one line (whitespace collapsed), at most 140 characters, ending in … when cut.',
    }),
    message_count: z.number().int(),
  })
  .meta({ id: 'ThreadSummary' });

export const Message = z
  .object({
    id: Uuid,
    channel: z.enum(CHANNELS),
    direction: z.enum(['inbound', 'outbound']),
    body: z.string(),
    created_at: Timestamp,
  })
  .meta({ id: 'Message' });

export const Thread = ThreadSummary.extend({ messages: z.array(Message) }).meta({ id: 'Thread' });

export const BookingsQuery = z.strictObject({
  status: z.enum(BOOKING_STATUSES).optional(),
  from: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'Only bookings starting at or after this instant (ISO 8601).' }),
  to: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'Only bookings starting before this instant (ISO 8601).' }),
  ...PagingQuery,
});

export const Booking = z
  .object({
    id: Uuid,
    status: z.enum(BOOKING_STATUSES),
    booking_type: z.object({ id: Uuid, name: z.string() }),
    contact: z.object({ name: z.string().nullable(), email: z.string().nullable() }),
    starts_at: Timestamp,
    ends_at: Timestamp,
    timezone: z.string(),
  })
  .meta({ id: 'Booking' });

export const VoiceQuery = z.strictObject({
  kind: z.enum(VOICE_KINDS).optional().meta({ description: 'call: inbound calls; voice_message: web voice messages.' }),
  ...PagingQuery,
});

export const VoiceInteraction = z
  .object({
    id: Uuid,
    kind: z.enum(VOICE_KINDS),
    from: z.string(),
    to: z.string(),
    status: z.enum(VOICE_STATUSES),
    started_at: Timestamp,
    duration_seconds: z.number().int(),
    transcript: z.string().nullable(),
  })
  .meta({ id: 'VoiceInteraction' });

/** The schemas of the engagement area's operations (their routes: `routes.ts`). */
export const engagementSchemas = {
  listThreads: { params: z.strictObject(wsParam), query: ThreadsQuery, body: undefined, response: ThreadSummary },
  listInboxThreads: { params: z.strictObject(wsParam), query: ThreadsQuery, body: undefined, response: ThreadSummary },
  getThread: {
    params: z.strictObject({ ...wsParam, thread: Uuid }),
    query: noQuery,
    body: undefined,
    response: Thread,
  },
  listBookings: { params: z.strictObject(wsParam), query: BookingsQuery, body: undefined, response: Booking },
  listVoiceInteractions: {
    params: z.strictObject(wsParam),
    query: VoiceQuery,
    body: undefined,
    response: VoiceInteraction,
  },
} satisfies Partial<Record<OperationId, OperationSchemas>>;
