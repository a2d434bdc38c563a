import type { SqlStatement } from '../sql.js';

// The columns each row type of the domain reads.
export const CALENDAR_COLUMNS = `id, organization_id, name, slug, color, is_active, is_default, timezone, locale,
  notification_email, default_duration_minutes, created_at, updated_at`;
export const LINK_COLUMNS = `id, organization_id, installation_id, calendar_id, template_id, slug, access_mode, secret_sha256,
  secret_issued_at, title, intro, recipient_email, recipient_name, recipient_account_id, project_id, valid_until,
  one_time_use, status, allowed_event_type_ids, email_binding_required, phone_required, booking_window_days,
  min_notice_minutes, slot_limit, rules_json, context, booked_at, revoked_at, created_at, updated_at, bookings_per_hour`;
export const TEMPLATE_COLUMNS = `id, calendar_id, name, slug_base, default_title, default_intro, default_valid_days,
  default_one_time_use, allowed_event_type_ids, email_binding_required, phone_required, booking_window_days,
  min_notice_minutes, slot_limit, status, created_at, updated_at`;
export const EVENT_TYPE_COLUMNS = `id, calendar_id, name, duration_minutes, buffer_before_minutes, buffer_after_minutes,
  location, meeting_url, description, status, created_at, updated_at`;
export const BOOKING_COLUMNS = `id, calendar_id, link_id, event_type_id, title, notes, booker_name, booker_email, booker_phone,
  booker_timezone, organizer_name, organizer_email, location, meeting_url, start_at, end_at, blocked_from,
  blocked_until, status, sequence, cancelled_reason, cancelled_at, created_at, updated_at`;

// Every statement of the calendar domain, PostgreSQL text with $n parameters, named for prepared plans.
// A list stops at 500 rows (CALENDAR_LIST_MAX in the contracts).
// Column lists are interpolated once, at module load; the row types are beside their handlers.

export const availabilityList: SqlStatement = {
  name: 'calendar.availability.list',
  text: `select day_of_week, start_time::text as start_time, end_time::text as end_time, timezone
from calendar_availability_rules where organization_id = $1 and calendar_id = $2 order by position`,
};

export const availabilityClear: SqlStatement = {
  name: 'calendar.availability.clear',
  text: 'delete from calendar_availability_rules where organization_id = $1 and calendar_id = $2',
};

export const availabilityInsert: SqlStatement = {
  name: 'calendar.availability.insert',
  text: `insert into calendar_availability_rules
  (id, organization_id, calendar_id, day_of_week, start_time, end_time, timezone, position)
values ($1, $2, $3, $4, $5, $6, $7, $8)`,
};

export const bookingList: SqlStatement = {
  name: 'calendar.booking.list',
  text: `select ${BOOKING_COLUMNS} from calendar_bookings
where organization_id = $1 and ($2::uuid is null or calendar_id = $2)
  and ($3::timestamptz is null or end_at > $3) and ($4::timestamptz is null or start_at < $4)
  and ($5 or status <> 'cancelled')
order by start_at, id limit 500`,
};

export const bookingFind: SqlStatement = {
  name: 'calendar.booking.find',
  text: `select ${BOOKING_COLUMNS} from calendar_bookings where organization_id = $1 and id = $2 for update`,
};

export const bookingCancel: SqlStatement = {
  name: 'calendar.booking.cancel',
  text: `update calendar_bookings set status = 'cancelled', cancelled_reason = $3, cancelled_at = $4,
  sequence = sequence + 1, updated_at = $4
where organization_id = $1 and id = $2 returning ${BOOKING_COLUMNS}`,
};

export const bookingUpdate: SqlStatement = {
  name: 'calendar.booking.update',
  text: `update calendar_bookings set title = $3, notes = $4, status = $5, start_at = $6, end_at = $7,
  blocked_from = $8, blocked_until = $9, sequence = sequence + $10, updated_at = $11
where organization_id = $1 and id = $2 returning ${BOOKING_COLUMNS}`,
};

export const pageLink: SqlStatement = {
  name: 'calendar.page.link',
  text: `select ${LINK_COLUMNS} from calendar_booking_links where organization_id = $1 and slug = $2`,
};

export const pageOwner: SqlStatement = {
  name: 'calendar.page.owner',
  text: `select l.organization_id, i.owner_email from calendar_booking_links l
join installations i on i.id = l.installation_id where l.slug = $1`,
};

export const pageClaimLink: SqlStatement = {
  name: 'calendar.page.claim_link',
  text: `update calendar_booking_links set status = 'booked', booked_at = $3, updated_at = $3
where organization_id = $1 and id = $2 and status = 'active' returning id`,
};

export const pageInsertBooking: SqlStatement = {
  name: 'calendar.page.insert_booking',
  text: `insert into calendar_bookings (id, organization_id, calendar_id, link_id, event_type_id, title, notes,
  booker_name, booker_email, booker_phone, booker_timezone, organizer_name, organizer_email, location, meeting_url,
  start_at, end_at, blocked_from, blocked_until, created_at, updated_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $20)
returning ${BOOKING_COLUMNS}`,
};

// One public booking of an organization at a time: the caps below count, then the booking is inserted,
// and a second process must not count before the first committed (the lock ends with the transaction).
export const pageBookingLock: SqlStatement = {
  name: 'calendar.page.booking_lock',
  text: `select pg_advisory_xact_lock(hashtextextended('calendar.public_booking:' || $1::text, 0))`,
};

// What public pages booked for the organization since $3: bookings, of them through link $2, and the mails
// they staged (the booker's, and the organizer's copy when there is an organizer address).
export const pageRecentBookings: SqlStatement = {
  name: 'calendar.page.recent_bookings',
  text: `select count(*)::int as organization_bookings,
  count(*) filter (where link_id = $2)::int as link_bookings,
  coalesce(sum(case when organizer_email is null then 1 else 2 end), 0)::int as organization_mails,
  min(created_at) as organization_oldest,
  min(created_at) filter (where link_id = $2) as link_oldest
from calendar_bookings where organization_id = $1 and link_id is not null and created_at > $3`,
};

export const bookingBusy: SqlStatement = {
  name: 'calendar.booking.busy',
  text: `select blocked_from, blocked_until from calendar_bookings
where organization_id = $1 and calendar_id = $2 and status <> 'cancelled'
  and blocked_from < $4 and blocked_until > $3`,
};

export const calendarList: SqlStatement = {
  name: 'calendar.calendar.list',
  text: `select ${CALENDAR_COLUMNS} from calendar_calendars where organization_id = $1 order by created_at, id limit 500`,
};

export const calendarInsert: SqlStatement = {
  name: 'calendar.calendar.insert',
  text: `insert into calendar_calendars (id, organization_id, name, slug, color, is_active, is_default, timezone,
  locale, notification_email, default_duration_minutes, created_at, updated_at)
values ($1, $2, $3, $4, $5, $6,
  not exists (select 1 from calendar_calendars where organization_id = $2 and is_default),
  $7, $8, $9, $10, $11, $11)
returning ${CALENDAR_COLUMNS}`,
};

export const calendarUpdate: SqlStatement = {
  name: 'calendar.calendar.update',
  text: `update calendar_calendars set name = $3, slug = $4, color = $5, is_active = $6, timezone = $7, locale = $8,
  notification_email = $9, default_duration_minutes = $10, updated_at = $11
where organization_id = $1 and id = $2
returning ${CALENDAR_COLUMNS}`,
};

export const calendarFind: SqlStatement = {
  name: 'calendar.calendar.find',
  text: `select ${CALENDAR_COLUMNS} from calendar_calendars where organization_id = $1 and id = $2`,
};

export const calendarDefault: SqlStatement = {
  name: 'calendar.calendar.default',
  text: `select ${CALENDAR_COLUMNS} from calendar_calendars where organization_id = $1 and is_default`,
};

export const calendarCreateDefault: SqlStatement = {
  name: 'calendar.calendar.create_default',
  text: `insert into calendar_calendars (id, organization_id, name, slug, is_default, created_at, updated_at)
values ($1, $2, 'Calendar', 'default', true, $3, $3)
on conflict do nothing
returning ${CALENDAR_COLUMNS}`,
};

export const eventTypeList: SqlStatement = {
  name: 'calendar.event_type.list',
  text: `select ${EVENT_TYPE_COLUMNS} from calendar_event_types
where organization_id = $1 and ($2::uuid is null or calendar_id = $2) and ($3 or status = 'active')
order by created_at, id limit 500`,
};

export const eventTypeInsert: SqlStatement = {
  name: 'calendar.event_type.insert',
  text: `insert into calendar_event_types (id, organization_id, calendar_id, name, duration_minutes,
  buffer_before_minutes, buffer_after_minutes, location, meeting_url, description, created_at, updated_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
returning ${EVENT_TYPE_COLUMNS}`,
};

export const eventTypeUpdate: SqlStatement = {
  name: 'calendar.event_type.update',
  text: `update calendar_event_types set name = $3, duration_minutes = $4, buffer_before_minutes = $5,
  buffer_after_minutes = $6, location = $7, meeting_url = $8, description = $9, status = $10, updated_at = $11
where organization_id = $1 and id = $2
returning ${EVENT_TYPE_COLUMNS}`,
};

export const eventTypeFindMany: SqlStatement = {
  name: 'calendar.event_type.find_many',
  text: `select ${EVENT_TYPE_COLUMNS} from calendar_event_types where organization_id = $1 and id = any($2::uuid[])`,
};

export const linkIssueSecret: SqlStatement = {
  name: 'calendar.link.issue_secret',
  text: `update calendar_booking_links set secret_sha256 = $3, secret_issued_at = $4, updated_at = $4
where organization_id = $1 and id = $2 returning ${LINK_COLUMNS}`,
};

export const linkList: SqlStatement = {
  name: 'calendar.link.list',
  text: `select ${LINK_COLUMNS} from calendar_booking_links
where organization_id = $1 and ($2::uuid is null or calendar_id = $2) and ($3::uuid is null or template_id = $3)
order by created_at desc, id limit 500`,
};

export const linkRevoke: SqlStatement = {
  name: 'calendar.link.revoke',
  text: `update calendar_booking_links set status = 'revoked', revoked_at = $3, secret_sha256 = null, updated_at = $3
where organization_id = $1 and id = $2 returning ${LINK_COLUMNS}`,
};

export const linkUpdate: SqlStatement = {
  name: 'calendar.link.update',
  text: `update calendar_booking_links set title = $3, recipient_email = $4, recipient_name = $5,
  recipient_account_id = $6, project_id = $7, valid_until = $8, one_time_use = $9, allowed_event_type_ids = $10,
  email_binding_required = $11, phone_required = $12, booking_window_days = $13, min_notice_minutes = $14,
  slot_limit = $15, rules_json = $16, context = $17, status = 'active', updated_at = $18, bookings_per_hour = $19
where organization_id = $1 and id = $2 returning ${LINK_COLUMNS}`,
};

export const linkInsert: SqlStatement = {
  name: 'calendar.link.insert',
  text: `insert into calendar_booking_links (id, organization_id, installation_id, calendar_id, template_id, slug,
  access_mode, title, intro, recipient_email, recipient_name, recipient_account_id, project_id, valid_until,
  one_time_use, allowed_event_type_ids, email_binding_required, phone_required, booking_window_days,
  min_notice_minutes, slot_limit, rules_json, context, created_at, updated_at, bookings_per_hour)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23,
  $24, $24, $25)
returning ${LINK_COLUMNS}`,
};

export const linkFind: SqlStatement = {
  name: 'calendar.link.find',
  text: `select ${LINK_COLUMNS} from calendar_booking_links where organization_id = $1 and id = $2`,
};

export const templateList: SqlStatement = {
  name: 'calendar.template.list',
  text: `select ${TEMPLATE_COLUMNS} from calendar_link_templates
where organization_id = $1 and ($2::text is null or status = $2) order by created_at, id limit 500`,
};

export const templateInsert: SqlStatement = {
  name: 'calendar.template.insert',
  text: `insert into calendar_link_templates (id, organization_id, calendar_id, name, slug_base, default_title,
  default_intro, default_valid_days, default_one_time_use, allowed_event_type_ids, email_binding_required,
  phone_required, booking_window_days, min_notice_minutes, slot_limit, status, created_at, updated_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)
returning ${TEMPLATE_COLUMNS}`,
};

export const templateUpdate: SqlStatement = {
  name: 'calendar.template.update',
  text: `update calendar_link_templates set calendar_id = $3, name = $4, slug_base = $5, default_title = $6,
  default_intro = $7, default_valid_days = $8, default_one_time_use = $9, allowed_event_type_ids = $10,
  email_binding_required = $11, phone_required = $12, booking_window_days = $13, min_notice_minutes = $14,
  slot_limit = $15, status = $16, updated_at = $17
where organization_id = $1 and id = $2
returning ${TEMPLATE_COLUMNS}`,
};

export const templateFind: SqlStatement = {
  name: 'calendar.template.find',
  text: `select ${TEMPLATE_COLUMNS} from calendar_link_templates where organization_id = $1 and id = $2`,
};

export const calendarFirst: SqlStatement = {
  name: 'calendar.calendar.first',
  text: `select ${CALENDAR_COLUMNS} from calendar_calendars where organization_id = $1
order by is_default desc, created_at limit 1`,
};
