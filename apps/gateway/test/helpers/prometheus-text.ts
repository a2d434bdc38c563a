/**
 * The value of the first sample of `name` in Prometheus' text format whose labels include `labels`
 * (other labels may be there too); undefined when none matches.
 */
export function sampleOf(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>>,
): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const present = new Map<string, string>();
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      present.set(pair[1] as string, pair[2] as string);
    }
    if (Object.entries(labels).every(([key, value]) => present.get(key) === value)) return Number(match[3]);
  }
  return undefined;
}
