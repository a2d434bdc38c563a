import { Setting, settingsSchema } from '@agw/contracts';
import type { BookingCaps } from './caps.js';
import { DEFAULT_BOOKING_CAPS } from './caps.js';
import { type BookingRateLimits, DEFAULT_BOOKING_RATE_LIMITS } from './routes.js';

// Room for a load test or a proxy that makes many visitors one address, not for no limit at all.
const PER_MINUTE_MAX = 1_000_000;
const PER_HOUR_MAX = 1_000_000;

/**
 * The calendar's environment variables: the public booking page's per-address limits and the hourly
 * caps that keep booking pages from being a mail relay (docs/calendar.md).
 */
export const calendarSettings = settingsSchema({
  CALENDAR_READS_PER_MINUTE: Setting.integer({
    default: DEFAULT_BOOKING_RATE_LIMITS.readsPerMinute,
    minimum: 1,
    maximum: PER_MINUTE_MAX,
    description:
      'booking page and slot reads per client address and minute (raise it behind a proxy that makes many visitors one address)',
  }),
  CALENDAR_BOOKINGS_PER_MINUTE: Setting.integer({
    default: DEFAULT_BOOKING_RATE_LIMITS.bookingsPerMinute,
    minimum: 1,
    maximum: PER_MINUTE_MAX,
    description: 'booking attempts per client address and minute',
  }),
  CALENDAR_LINK_BOOKINGS_PER_HOUR: Setting.integer({
    default: DEFAULT_BOOKING_CAPS.linkBookingsPerHour,
    minimum: 1,
    maximum: PER_HOUR_MAX,
    description: 'bookings of one public link per hour, for a link without its own `bookings_per_hour`',
  }),
  CALENDAR_ORG_BOOKINGS_PER_HOUR: Setting.integer({
    default: DEFAULT_BOOKING_CAPS.organizationBookingsPerHour,
    minimum: 1,
    maximum: PER_HOUR_MAX,
    description: 'bookings of all public links of one organization per hour',
  }),
  CALENDAR_ORG_MAILS_PER_HOUR: Setting.integer({
    default: DEFAULT_BOOKING_CAPS.organizationMailsPerHour,
    minimum: 1,
    maximum: PER_HOUR_MAX,
    description: 'mails those bookings stage per hour (the booker’s and the organizer’s copy)',
  }),
});

/** The limits and caps in `settings` (the values of {@link calendarSettings} the host hands over). */
export function bookingLimitsOf(settings: Readonly<Record<string, unknown>>): {
  limits: BookingRateLimits;
  caps: BookingCaps;
} {
  const value = (name: keyof typeof calendarSettings.properties) => settings[name] as number;
  return {
    limits: {
      readsPerMinute: value('CALENDAR_READS_PER_MINUTE'),
      bookingsPerMinute: value('CALENDAR_BOOKINGS_PER_MINUTE'),
    },
    caps: {
      linkBookingsPerHour: value('CALENDAR_LINK_BOOKINGS_PER_HOUR'),
      organizationBookingsPerHour: value('CALENDAR_ORG_BOOKINGS_PER_HOUR'),
      organizationMailsPerHour: value('CALENDAR_ORG_MAILS_PER_HOUR'),
    },
  };
}
