// Issue 26, finding 1: while one organization's agent renders the largest document billing allows, in a
// loop, every other caller must keep being served. The scenarios built here measure GET /health and
// another organization's read invoke under that load; the renders run in the billing render pool (worker
// threads), so the event loop stays free. The draft PDF is rendered on every call (never archived), so
// the loop renders for the whole run. On both databases: a read holds no connection while it renders, so on
// embedded PGlite (one session) the other callers' statements go between the render's (the smoke run: 5 lines).

const today = new Date().toISOString().slice(0, 10);
const LARGEST_DRAFT = 250; // billing.document.create_draft lines.maxItems

/** Invokes `id` with `params` as `key`; the result, or an error naming the answer. */
async function invoke(baseUrl, key, id, params, idempotencyKey) {
  const response = await fetch(new URL('/mcp/invoke', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ id, params, ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}) }),
  });
  const body = await response.json();
  if (response.status !== 200 || body.status !== 'succeeded') {
    throw new Error(`bench set-up ${id}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
  return body.result;
}

/** A draft invoice of `lines` lines with an issuer profile and a customer, in the organization of `key`. */
async function largestDraft(baseUrl, key, lines) {
  const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  await invoke(
    baseUrl,
    key,
    'billing.profile.save',
    {
      display_name: 'Bench GmbH',
      issuer_name: 'Bench GmbH',
      issuer_address_line1: 'Große Straße 1',
      issuer_postal_code: '10115',
      issuer_city: 'Berlin',
      issuer_country: 'DE',
      issuer_vat_id: 'DE123456789',
      issuer_email: 'rechnung@bench.example',
      locale: 'de-DE',
    },
    `bench-profile-${tag}`,
  );
  const account = await invoke(
    baseUrl,
    key,
    'billing.account.save',
    {
      name: 'Müller Bau GmbH',
      address_line1: 'Amtsweg 5',
      postal_code: '20095',
      city: 'Hamburg',
      country_code: 'DE',
      vat_id: 'DE987654321',
      buyer_reference: '04011000-12345-67',
      email: 'rechnung@mueller-bau.example',
      payment_terms_days: 14,
    },
    `bench-account-${tag}`,
  );
  const draft = await invoke(
    baseUrl,
    key,
    'billing.document.create_draft',
    {
      document_type: 'invoice',
      document_date: today,
      account_id: account.account.id,
      lines: Array.from({ length: lines }, (_, index) => ({
        item_name: `Prüfung Abschnitt ${index + 1}`,
        description: 'Sichtprüfung und Protokoll\nmit Fotos',
        quantity: 1 + (index % 5),
        unit: 'HUR',
        unit_price: 95.5 + index,
        tax_percent: index % 3 === 0 ? 7 : 19,
      })),
    },
    `bench-draft-${tag}`,
  );
  return draft.document_id;
}

/**
 * Starts rendering the largest draft's PDF in a loop as a fresh organization (`installation()` onboards
 * one); answers how many renders finished and the function that ends the loop after the render under way.
 */
async function renderLoop(baseUrl, installation, lines) {
  const { key } = await installation();
  // How long each step takes at this size, measured once per scenario (docs/billing.md quotes them).
  const timed = async (work) => {
    const started = performance.now();
    const value = await work();
    return [value, Math.round(performance.now() - started)];
  };
  const [documentId, createMs] = await timed(() => largestDraft(baseUrl, key, lines));
  const [issued] = await timed(() => largestDraft(baseUrl, key, lines));
  const doc = { document_id: issued };
  const [, finalizeMs] = await timed(() =>
    invoke(baseUrl, key, 'billing.document.finalize', doc, `f-${issued}`),
  );
  const [, facturxMs] = await timed(() => invoke(baseUrl, key, 'billing.document.facturx', doc));
  const steps = `create_draft (with profile and account) ${createMs} ms, finalize ${finalizeMs} ms, facturx ${facturxMs} ms (first of the thread)`;
  let running = true;
  let renders = 0;
  let renderingMs = 0;
  const loop = (async () => {
    while (running) {
      const [, ms] = await timed(() =>
        invoke(baseUrl, key, 'billing.document.pdf', { document_id: documentId }),
      );
      renders += 1;
      renderingMs += ms;
    }
  })();
  // The first render starts the pool's thread: measure once one finished.
  while (renders === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  return {
    summary: () =>
      `${renders} draft PDFs of ${lines} lines, ${Math.round(renderingMs / Math.max(1, renders))} ms each; ${steps}`,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/**
 * The two scenarios: `request(baseUrl, gateway)` is what is measured (as the other scenarios shape it),
 * `installation(baseUrl, gateway)` onboards a fresh organization for the renders.
 */
export function renderIsolationScenarios({ healthRequest, readRequest, freshInstallation }) {
  const whileRendering = (name, baseline, request) => ({
    name: `${name} while another organization renders its ${LARGEST_DRAFT}-line draft PDF in a loop`,
    baseline,
    modes: ['embedded', 'postgres'],
    async prepare(baseUrl, gateway) {
      const measured = await request(baseUrl, gateway);
      const lines = gateway.smoke ? 5 : LARGEST_DRAFT;
      const loop = await renderLoop(baseUrl, () => freshInstallation(baseUrl, gateway.dataDir), lines);
      return {
        ...measured,
        // Another organization's steady traffic: 4 callers at a time, not a flood that queues behind
        // itself (the other scenarios measure throughput with 32).
        connections: gateway.smoke ? undefined : 4,
        async stop() {
          await loop.stop();
          return loop.summary();
        },
      };
    },
  });
  return [
    whileRendering('GET /health', 'get', async () => healthRequest()),
    whileRendering('invoke (read)', 'post', readRequest),
  ];
}
