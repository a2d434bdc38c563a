/**
 * Document numbers. A pattern holds `{YYYY}`, `{YY}`, `{MM}` and one `{SEQ}` / `{SEQ:n}` (n digits,
 * zero-padded). The sequence belongs to the pattern (the counter row's `profile_scope` is the pattern
 * text): profiles with their own patterns count on their own; profiles sharing a pattern share its
 * sequence, so two profiles can never hand out the same number. A pattern with a year restarts at 1
 * every year; one without counts on forever (counter year 0).
 */

export const DEFAULT_NUMBER_PATTERNS: Readonly<Record<string, string>> = {
  quote: 'QT-{YYYY}-{SEQ:5}',
  sales_order: 'SO-{YYYY}-{SEQ:5}',
  invoice: 'INV-{YYYY}-{SEQ:5}',
  credit_note: 'CN-{YYYY}-{SEQ:5}',
  self_billing_invoice: 'SB-{YYYY}-{SEQ:5}',
};

/** The counter year of `pattern` for a document dated `date` (`YYYY-MM-DD`). */
export function counterYear(pattern: string, date: string): number {
  return /\{YYYY\}|\{YY\}/.test(pattern) ? Number(date.slice(0, 4)) : 0;
}

/** The number `sequence` in `pattern` for a document dated `date`. */
export function formatNumber(pattern: string, date: string, sequence: bigint | number | string): string {
  return pattern
    .replace(/\{YYYY\}/g, date.slice(0, 4))
    .replace(/\{YY\}/g, date.slice(2, 4))
    .replace(/\{MM\}/g, date.slice(5, 7))
    .replace(/\{SEQ(?::([1-9]))?\}/, (_all, width: string | undefined) =>
      String(sequence).padStart(Number(width ?? 1), '0'),
    );
}
