const formats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day (YYYY-MM-DD) of `at` in `timezone`; one formatter per zone, made once. */
export function localDay(timezone: string, at: Date): string {
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
  return format.format(at);
}
