import type { TraceEntry } from '@agw/guard';

/**
 * The guard trace as `audit_events.details.trace` stores it: one string per entry,
 * `"<guard> <phase> <outcome> <duration_ms>[ <code>][ shadow]"`, e.g. `"billing check deny 0.081
 * insufficient_funds"`. An entry as a jsonb object (four keys and a numeric) made the trace the
 * dearest part of an audit row: PostgreSQL's insert of an invoke's row went from ~100 to ~65 µs with
 * the same facts as strings (issue 31, docs/performance.md). Readers get the objects back
 * ({@link decodeTrace}, GET /admin/audit and the console); the chain hashes the stored form.
 */
export function encodeTrace(trace: readonly TraceEntry[]): string[] {
  return trace.map((entry) => {
    let text = `${entry.guard} ${entry.phase} ${entry.outcome} ${entry.duration_ms}`;
    if (entry.code !== undefined) text += ` ${entry.code}`;
    if (entry.shadow === true) text += ' shadow';
    return text;
  });
}

/**
 * The trace's entries as objects: a string entry of {@link encodeTrace} is expanded, an object (rows
 * written before the strings) is kept as it is. Anything but an array is returned unchanged.
 */
export function decodeTrace(trace: unknown): unknown {
  if (!Array.isArray(trace)) return trace;
  return trace.map((entry) => {
    if (typeof entry !== 'string') return entry;
    const [guard, phase, outcome, duration, ...rest] = entry.split(' ');
    const code = rest.find((token) => token !== 'shadow');
    return {
      guard,
      phase,
      outcome,
      duration_ms: Number(duration),
      ...(code === undefined ? {} : { code }),
      ...(rest.includes('shadow') ? { shadow: true } : {}),
    };
  });
}
