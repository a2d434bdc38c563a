import type { CapabilityDomain } from '../domain.js';
import { calendarAvailabilityManageHandler } from './availability-manage.js';
import { calendarBookingManageHandler } from './booking-manage.js';
import { calendarCalendarManageHandler } from './calendar-manage.js';
import { calendarEventTypeManageHandler } from './event-type-manage.js';
import { calendarBookingLinkIssueSecretHandler } from './link-issue-secret.js';
import { calendarBookingLinkManageHandler } from './link-manage.js';
import { calendarMigrations } from './migrations.js';
import { bookingRoutes, DEFAULT_BOOKING_RATE_LIMITS } from './routes.js';
import { calendarBookingLinkTemplateManageHandler } from './template-manage.js';

/**
 * `calendar`: calendars with weekly availability, event types, booking links (public or secret, from
 * templates), bookings that never overlap, and the public booking page with its JSON API.
 */
export const calendarDomain: CapabilityDomain = {
  name: 'calendar',
  handlers: [
    calendarCalendarManageHandler,
    calendarAvailabilityManageHandler,
    calendarEventTypeManageHandler,
    calendarBookingLinkTemplateManageHandler,
    calendarBookingLinkManageHandler,
    calendarBookingLinkIssueSecretHandler,
    calendarBookingManageHandler,
  ] as unknown as CapabilityDomain['handlers'],
  migrations: calendarMigrations,
  start: (host) => ({ routes: bookingRoutes(host, rateLimitsFromEnvironment()) }),
};

/**
 * CALENDAR_BOOKINGS_PER_MINUTE and CALENDAR_READS_PER_MINUTE (per client address) override the
 * defaults, e.g. behind a proxy that makes many visitors one address, or for a load test.
 */
function rateLimitsFromEnvironment() {
  const read = (name: string, fallback: number) => {
    const value = Number(process.env[name]);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  return {
    readsPerMinute: read('CALENDAR_READS_PER_MINUTE', DEFAULT_BOOKING_RATE_LIMITS.readsPerMinute),
    bookingsPerMinute: read('CALENDAR_BOOKINGS_PER_MINUTE', DEFAULT_BOOKING_RATE_LIMITS.bookingsPerMinute),
  };
}
