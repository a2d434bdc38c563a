/** Renders a benchmark report (see run.mjs) as a markdown table per mode. */
export function renderMarkdown(report) {
  const lines = [
    `Benchmark of ${report.generated_at}: ${report.connections} connections, ${report.duration_s} s per scenario.`,
    '',
    `Baseline (bare Koa JSON echo): GET ${report.baseline.get.requests_per_second} req/s (p99 ${report.baseline.get.p99_ms} ms), ` +
      `POST ${report.baseline.post.requests_per_second} req/s (p99 ${report.baseline.post.p99_ms} ms, ` +
      `${report.baseline.post.cpu_us_per_request.server} µs CPU per request).`,
    '',
    'CPU µs/req: CPU time per request of the gateway process / of all PostgreSQL processes / of Redis.',
    "PostgreSQL exec µs/req: pg_stat_statements' total_exec_time of every statement in the gateway's database during the run (the sealer's and roll-up's included) per request; — where the server has not loaded pg_stat_statements.",
    'Ratio to echo: against the echo measured right before and right after the scenario (the "echo around" column).',
  ];
  for (const [mode, result] of Object.entries(report.modes)) {
    const rss = Object.entries(result.peak_rss_mib).map(([kind, mib]) => `${kind} ${mib} MiB`);
    lines.push('', `### ${mode} (gateway peak RSS: ${rss.join(', ')})`, '');
    lines.push(prototypeLine(result.prototype), '');
    lines.push(
      '| scenario | req/s | p50 ms | p99 ms | max ms | echo around | ratio to echo | ratio to prototype | p99 added ms | CPU µs/req | PostgreSQL exec µs/req | non-2xx |',
    );
    lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of result.scenarios) {
      if (row.skipped) {
        lines.push(`| ${row.scenario} | — | — | — | — | — | — | — | — | — | — | skipped: ${row.skipped} |`);
      } else {
        lines.push(
          `| ${row.scenario}${row.note ? ` (${row.note})` : ''} | ${row.requests_per_second} | ${row.p50_ms} | ${row.p99_ms} | ${row.max_ms ?? '—'} | ${around(row.echo_around)} | ${row.ratio_to_baseline} | ${row.ratio_to_prototype ?? '—'} | ${row.p99_added_ms} | ${cpu(row.cpu_us_per_request)} | ${row.postgres_exec_us_per_request ?? '—'} | ${row.non_2xx} |`,
        );
      }
    }
  }
  if (report.fleet) lines.push('', ...fleetLines(report.fleet));
  return `${lines.join('\n')}\n`;
}

/** Three gateways through nginx and pgbouncer: total req/s and PostgreSQL's execution µs per request. */
function fleetLines(fleet) {
  const title = '### fleet (3 gateways, nginx, pgbouncer 1.18 in transaction mode, unnamed statements)';
  if (fleet.skipped) return [title, '', `Skipped: ${fleet.skipped}.`];
  return [
    title,
    '',
    "PostgreSQL µs/req: pg_stat_statements total_exec_time of every top-level statement during the run (background work included; a foreign key's lookup inside a statement is already in that statement's time) per answered request.",
    '',
    '| scenario | req/s (all gateways) | p99 ms | PostgreSQL µs/req | statements/req | non-2xx |',
    '|---|---:|---:|---:|---:|---:|',
    ...fleet.scenarios.map(
      (row) =>
        `| ${row.scenario} | ${row.requests_per_second} | ${row.p99_ms} | ${row.postgres_exec_us_per_request} | ${row.statements_per_request} | ${row.non_2xx + row.errors} |`,
    ),
  ];
}

function prototypeLine(prototype) {
  if (prototype === undefined)
    return 'Prototype ceiling: not measured (../shared/bench is not beside this checkout).';
  const { read, mutating } = prototype;
  return (
    `Prototype ceiling (../shared/bench/prototype-gateway.mjs, same database): read ${read.requests_per_second} req/s ` +
    `(${read.cpu_us_per_request.server} µs CPU/req${exec(read)}), mutating ${mutating.requests_per_second} req/s ` +
    `(${mutating.cpu_us_per_request.server} µs CPU/req${exec(mutating)}).`
  );
}

function exec(row) {
  const micros = row.postgres_exec_us_per_request;
  return micros === undefined ? '' : `, ${micros} µs PostgreSQL exec/req`;
}

function around(echo) {
  return echo === undefined ? '—' : `${echo.before} / ${echo.after}`;
}

function cpu({ server, postgres, redis }) {
  return `${server} / ${postgres} / ${redis}`;
}
