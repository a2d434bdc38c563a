const formats = new Map<string, Intl.DateTimeFormat>();
/** The last answer per zone, for its quarter hour: every page view asks for today's day. */
const lastDays = new Map<string, { quarter: number; day: string }>();

// Every time zone's offset is a whole number of quarter hours, so a local day never changes within one.
const QUARTER_HOUR_MS = 15 * 60_000;

/** The calendar day (YYYY-MM-DD) of `at` in `timezone`; one formatter per zone, made once. */
export function localDay(timezone: string, at: Date): string {
  const quarter = Math.floor(at.getTime() / QUARTER_HOUR_MS);
  const last = lastDays.get(timezone);
  if (last !== undefined && last.quarter === quarter) return last.day;
  let format = formats.get(timezone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formats.set(timezone, format);
  }
  const day = format.format(at);
  lastDays.set(timezone, { quarter, day });
  return day;
}
