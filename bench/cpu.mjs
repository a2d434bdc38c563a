// CPU time of processes, from /proc, for the bench's runs: per request, CPU time is steadier than req/s
// when the machine is shared, and PostgreSQL's CPU is what its execution time cannot show — execution
// time counts waiting for a core or a lock too.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const pg = createRequire(join(root, 'apps/gateway/package.json'))('pg');

/**
 * CPU time (user + system, µs; clock ticks of 10 ms) used so far by the processes `match` selects,
 * given each one's pid, parent pid and command line.
 */
export function cpuMicros(match) {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      // Fields after the command name: the parent is the 2nd, utime and stime the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      if (!match(Number(pid), Number(fields[1]), readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) continue;
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks * 10_000;
}

/** Selects one process by pid, for {@link cpuMicros}. */
export const processWithPid = (pid) => (candidate) => candidate === pid;

/** Selects the PostgreSQL server `postmaster` and its children (backends, background workers). */
export const postgresServer = (postmaster) => (candidate, parent) =>
  candidate === postmaster || parent === postmaster;

/**
 * The pid of the PostgreSQL server behind `url` (the parent of a backend of ours), so that only its
 * processes are counted: other PostgreSQL servers on a shared machine are someone else's load.
 */
export async function postmasterOf(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('select pg_backend_pid() as pid');
    return Number(readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  } finally {
    await client.end();
  }
}
