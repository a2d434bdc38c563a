// `node bench/analytics-profile.mjs <file.cpuprofile> [--from 6.5] [--to 1.5]`: where a gateway's CPU went,
// from a V8 CPU profile written by `node bench/analytics-ingest.mjs --cpu-prof`. Only samples between
// --from and --to seconds before the profile's end count (by default the 5 s load run before the stop,
// not the start-up and migrations). Prints self time per package (or node built-in) and the functions
// with the most time including their callees.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { from: { type: 'string', default: '6.5' }, to: { type: 'string', default: '1.5' } },
});
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);

const times = [];
let clock = profile.startTime;
for (const delta of profile.timeDeltas) {
  clock += delta;
  times.push(clock);
}
const from = clock - Number(args.from) * 1e6;
const to = clock - Number(args.to) * 1e6;

function packageOf(frame) {
  const url = frame.url;
  const pnpm = url.match(/node_modules\/\.pnpm\/([^/]+)/)?.[1];
  if (pnpm) return pnpm.replace(/@[\d.]+(_.*)?$/, '');
  if (url.includes('/dist/')) return url.replace(/.*\/(packages|apps)\//, '$1/');
  if (url.startsWith('node:')) return url.split('/')[0];
  return frame.functionName || '(native)';
}
const label = (frame) => `${frame.functionName || '(anonymous)'} ${packageOf(frame)}:${frame.lineNumber + 1}`;

const self = new Map();
const inclusive = new Map();
let total = 0;
profile.samples.forEach((id, index) => {
  if (times[index] < from || times[index] > to) return;
  const delta = profile.timeDeltas[index] ?? 0;
  total += delta;
  const frame = nodes.get(id).callFrame;
  self.set(packageOf(frame), (self.get(packageOf(frame)) ?? 0) + delta);
  const seen = new Set();
  for (let current = id; current !== undefined; current = parents.get(current)) {
    const key = label(nodes.get(current).callFrame);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + delta);
  }
});
const top = (map, count) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, time]) => `${((100 * time) / total).toFixed(1).padStart(5)}%  ${key}`)
    .join('\n');
console.info(`${(total / 1e6).toFixed(1)} s of samples\n\nself time by package\n${top(self, 25)}`);
console.info(`\nincluding callees\n${top(inclusive, 40)}`);
