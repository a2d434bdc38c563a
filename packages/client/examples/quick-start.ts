import { writeFile } from 'node:fs/promises';
import { stdin, stdout } from 'node:process';
import { createInterface } from 'node:readline/promises';
import { createClient } from '@agw/client';

const prompt = createInterface({ input: stdin, output: stdout });
const client = createClient({ baseUrl: 'http://localhost:3000' });

await client.onboard({
  register: { owner_email: 'owner@example.com', app: { slug: 'invoice-bot', name: 'Invoice Bot' } },
  organization: { name: 'Acme Ltd' },
  getOwnerOtp: () => prompt.question('Code sent to owner@example.com: '),
  onInstallationKey: (key) => writeFile('.agw-key', key.token, { mode: 0o600 }), // shown once: keep it
  onStatus: (event) => console.log(event.type), // the operator approves meanwhile: agw approvals
});

const { invocation } = await client.runPaidCapability('billing.document.create_draft', {
  document_type: 'invoice',
  document_date: '2026-11-22',
  lines: [{ item_name: 'Consulting', quantity: 2, unit_price: 150 }],
});
console.log(invocation.status, invocation.result?.document_id);
prompt.close();
