import { bookingHandlers } from './bookings.js';
import { threadHandlers } from './threads.js';
import { voiceHandlers } from './voice.js';

/** The engagement area's handlers: threads, bookings and voice interactions, a file each. */
export const engagementHandlers = [...threadHandlers, ...bookingHandlers, ...voiceHandlers];
