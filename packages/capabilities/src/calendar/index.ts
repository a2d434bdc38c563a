import type { CapabilityDomain } from '../domain.js';
import { calendarAvailabilityManageHandler } from './availability-manage.js';
import { calendarBookingManageHandler } from './booking-manage.js';
import { calendarCalendarManageHandler } from './calendar-manage.js';
import { calendarEventTypeManageHandler } from './event-type-manage.js';
import { calendarBookingLinkIssueSecretHandler } from './link-issue-secret.js';
import { calendarBookingLinkManageHandler } from './link-manage.js';
import { calendarMigrations } from './migrations.js';
import { bookingRoutes } from './routes.js';
import { bookingLimitsOf, calendarSettings } from './settings.js';
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
  extensions: ['btree_gist'], // the no-overlap exclusion constraint: `calendar_id with =` on a uuid
  settings: calendarSettings,
  start: (host) => {
    const { limits, caps } = bookingLimitsOf(host.settings);
    return { routes: bookingRoutes(host, limits, caps) };
  },
};
