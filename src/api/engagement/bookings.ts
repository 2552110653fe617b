import { operations } from '../../contract/operations.js';
import type { BookingRecord } from '../../store/records.js';
import { implement } from '../../server/context.js';
import { pageRecords } from '../../server/paging.js';
import { validationFailed } from '../../server/problems.js';

const iso = (t: string) => new Date(t).toISOString();

function bookingItem(b: BookingRecord) {
  return {
    id: b.id,
    status: b.status,
    booking_type: { id: b.booking_type.id, name: b.booking_type.name },
    contact: { name: b.contact.name, email: b.contact.email },
    starts_at: b.starts_at,
    ends_at: b.ends_at,
    timezone: b.timezone,
  };
}

export const bookingHandlers = [
  implement(operations.listBookings, ({ params, query, db }) => {
    // The index is sorted by starts_at, so `from`/`to` bound the key: a range, not a scan.
    // Stored times are UTC ISO strings; the bounds are normalised the same way to compare as text.
    const from = query.from ? iso(query.from) : undefined;
    const to = query.to ? iso(query.to) : undefined;
    if (from && to && from > to) {
      throw validationFailed({
        to: [`\`to\` (${query.to}) is before \`from\` (${query.from}): no booking can start in that range; swap them.`],
      });
    }
    const { status } = query;
    return pageRecords(db, 'bookingsByWorkspace', params.workspace, {
      scope: JSON.stringify(['bookings', params.workspace, status ?? null, from ?? null, to ?? null]),
      cursor: query.cursor,
      limit: query.limit,
      filter: status ? (b) => b.status === status : undefined,
      map: bookingItem,
      from: from ? [from] : undefined,
      to: to ? [to] : undefined,
    });
  }),
];
