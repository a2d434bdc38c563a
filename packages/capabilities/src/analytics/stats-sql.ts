/**
 * The stats queries. Parameters: $1 organization, $2 property, $3 from, $4 to (the window, to
 * excluded); where a query takes more, its comment says so. Unnamed: each runs once per call.
 */

const IN_WINDOW = 'organization_id = $1 and property_id = $2 and occurred_at >= $3 and occurred_at < $4';

export const TOTALS = `select count(*)::int as events,
  count(*) filter (where name = 'pageview')::int as pageviews,
  count(*) filter (where outcome = 'error')::int as errors,
  count(distinct visitor_id)::int as visitors
from analytics_events where ${IN_WINDOW}`;

/**
 * Visits: a visitor's events with less than 30 minutes between one and the next; each visit with its
 * event count, length and the referring host of its first event. One sort (the window's), no ordered
 * aggregate: the first event of a visit is the one row marked `starts`.
 */
const VISITS = `with marked as (
  select id, visitor_id, occurred_at, referrer_host,
    case when lag(occurred_at) over w is null or occurred_at - lag(occurred_at) over w > interval '30 minutes'
      then 1 else 0 end as starts
  from analytics_events where ${IN_WINDOW} and visitor_id is not null
  window w as (partition by visitor_id order by occurred_at, id)
), numbered as (
  select visitor_id, occurred_at, referrer_host, starts,
    sum(starts) over (partition by visitor_id order by occurred_at, id rows unbounded preceding) as visit
  from marked
), visits as (
  select visitor_id, visit, count(*) as events,
    extract(epoch from max(occurred_at) - min(occurred_at)) as seconds,
    max(referrer_host) filter (where starts = 1) as entry_referrer
  from numbered group by visitor_id, visit
)`;

/**
 * Visits per referring host of their first event (`(direct)` without one), with their bounces and
 * summed lengths: the totals and the top referrers both come from these rows, so visits are computed once.
 */
export const VISITS_BY_REFERRER = `${VISITS}
select coalesce(entry_referrer, '(direct)') as referrer, count(*)::int as visits,
  count(distinct visitor_id)::int as visitors, count(*) filter (where events = 1)::int as bounces,
  coalesce(sum(seconds), 0)::float8 as seconds
from visits group by 1`;

/** $5 limit. */
export const TOP_PAGES = `select coalesce(path, '/') as path, count(*)::int as pageviews,
  count(distinct visitor_id)::int as visitors
from analytics_events where ${IN_WINDOW} and name = 'pageview'
group by 1 order by pageviews desc, path limit $5`;

/** $5 limit. */
export const EVENTS_BY_NAME = `select name, count(*)::int as events, count(distinct visitor_id)::int as visitors
from analytics_events where ${IN_WINDOW}
group by name order by events desc, name limit $5`;

/** $5 limit. */
export const ERRORS = `select name, category, count(*)::int as count, max(occurred_at) as last_at
from analytics_events where ${IN_WINDOW} and outcome = 'error'
group by name, category order by count desc, name, category limit $5`;

/**
 * Every bucket of the window in the property's time zone, empty ones too. $5 'hour' or 'day',
 * $6 the time zone.
 */
export const SERIES = `with buckets as (
  select generate_series(
    date_trunc($5, $3::timestamptz at time zone $6),
    date_trunc($5, ($4::timestamptz - interval '1 microsecond') at time zone $6),
    ('1 ' || $5)::interval) as local_start
), counts as (
  select date_trunc($5, occurred_at at time zone $6) as local_start,
    count(*) filter (where name = 'pageview')::int as pageviews,
    count(distinct visitor_id)::int as visitors,
    count(*)::int as events,
    count(*) filter (where outcome = 'error')::int as errors
  from analytics_events where ${IN_WINDOW} group by 1
)
select to_char(b.local_start, 'YYYY-MM-DD"T"HH24:MI:SS') as local_start, b.local_start at time zone $6 as start,
  coalesce(c.pageviews, 0) as pageviews, coalesce(c.visitors, 0) as visitors, coalesce(c.events, 0) as events,
  coalesce(c.errors, 0) as errors
from buckets b left join counts c on c.local_start = b.local_start
order by b.local_start`;
