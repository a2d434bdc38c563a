import type { CapabilityDomain } from '../domain.js';
import { calendarAvailabilityManageHandler } from './availability-manage.js';
import { calendarBookingManageHandler } from './booking-manage.js';
import { calendarCalendarManageHandler } from './calendar-manage.js';
import { DEFAULT_BOOKING_CAPS } from './caps.js';
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
  start: (host) => ({ routes: bookingRoutes(host, rateLimitsFromEnvironment(), capsFromEnvironment()) }),
};

/**
 * CALENDAR_BOOKINGS_PER_MINUTE and CALENDAR_READS_PER_MINUTE (per client address) override the
 * defaults, e.g. behind a proxy that makes many visitors one address, or for a load test.
 */
function rateLimitsFromEnvironment() {
  return {
    readsPerMinute: read('CALENDAR_READS_PER_MINUTE', DEFAULT_BOOKING_RATE_LIMITS.readsPerMinute),
    bookingsPerMinute: read('CALENDAR_BOOKINGS_PER_MINUTE', DEFAULT_BOOKING_RATE_LIMITS.bookingsPerMinute),
  };
}

/**
 * CALENDAR_LINK_BOOKINGS_PER_HOUR (a link without its own `bookings_per_hour`),
 * CALENDAR_ORG_BOOKINGS_PER_HOUR and CALENDAR_ORG_MAILS_PER_HOUR (all public links of one
 * organization) override the caps that keep booking pages from being a mail relay (docs/calendar.md).
 */
function capsFromEnvironment() {
  return {
    linkBookingsPerHour: read('CALENDAR_LINK_BOOKINGS_PER_HOUR', DEFAULT_BOOKING_CAPS.linkBookingsPerHour),
    organizationBookingsPerHour: read(
      'CALENDAR_ORG_BOOKINGS_PER_HOUR',
      DEFAULT_BOOKING_CAPS.organizationBookingsPerHour,
    ),
    organizationMailsPerHour: read(
      'CALENDAR_ORG_MAILS_PER_HOUR',
      DEFAULT_BOOKING_CAPS.organizationMailsPerHour,
    ),
  };
}

/** A positive whole number from the environment, or `fallback`. */
function read(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
