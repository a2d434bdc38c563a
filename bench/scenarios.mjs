// What the benchmark measures. Each scenario names the baseline it is compared with ('get' or 'post'
// echo) and the gateway it runs against ('standard' by default, or 'padded' with 10 000 capabilities).
// `prepare` returns the autocannon request options, or { skip: reason } when the gateway does not serve
// that path yet.
async function probe(baseUrl, path, init) {
  const response = await fetch(new URL(path, baseUrl), init);
  return response.status;
}

export const scenarios = [
  {
    name: 'GET /health',
    baseline: 'get',
    async prepare() {
      return { method: 'GET', path: '/health' };
    },
  },
  {
    name: 'GET /capabilities',
    baseline: 'get',
    async prepare() {
      return { method: 'GET', path: '/capabilities' };
    },
  },
  {
    name: 'search_capabilities (10 000 capabilities)',
    baseline: 'post',
    gateway: 'padded',
    async prepare(baseUrl) {
      const body = JSON.stringify({ query: 'invoice', limit: 10 });
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
      const status = await probe(baseUrl, '/mcp/search_capabilities', init);
      if (status === 404) return { skip: 'search_capabilities is not served yet (issue 4)' };
      return { method: 'POST', path: '/mcp/search_capabilities', headers: init.headers, body };
    },
  },
  {
    name: 'describe',
    baseline: 'post',
    async prepare(baseUrl) {
      const body = JSON.stringify({ id: 'core.org.current.get' });
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
      const status = await probe(baseUrl, '/mcp/describe', init);
      if (status === 404) return { skip: 'describe is not served yet (issue 4)' };
      return { method: 'POST', path: '/mcp/describe', headers: init.headers, body };
    },
  },
  // The invoke scenarios need an approved installation and the meta-tools; they are measured once
  // onboarding (issue 3) and the guard chain (issue 4) have landed.
  { name: 'invoke (read, 9 guards)', baseline: 'post', prepare: pendingInvoke },
  { name: 'invoke (mutating, fresh idempotency key)', baseline: 'post', prepare: pendingInvoke },
  { name: 'invoke (replay of one key)', baseline: 'post', prepare: pendingInvoke },
];

async function pendingInvoke(baseUrl) {
  const status = await probe(baseUrl, '/mcp/invoke', { method: 'POST' });
  if (status === 404) return { skip: 'invoke is not served yet (issue 4)' };
  return { skip: 'needs an approved installation (issues 3 and 4)' };
}
