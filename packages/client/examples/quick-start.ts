import { writeFile } from 'node:fs/promises';
import { stdin, stdout } from 'node:process';
import { createInterface } from 'node:readline/promises';
import { createClient } from '@agw/client';

const prompt = createInterface({ input: stdin, output: stdout });
const client = createClient({ baseUrl: 'http://127.0.0.1:8080' });

await client.onboard({
  register: { owner_email: 'owner@example.com', app: { slug: 'invoice-bot', name: 'Invoice Bot' } },
  organization: { name: 'Acme Ltd' },
  getOwnerOtp: () => prompt.question('Code sent to owner@example.com: '),
  onInstallationKey: (key) => writeFile('.agw-key', key.token, { mode: 0o600 }), // shown once: keep it
  onStatus: (event) => console.log(event.type), // meanwhile the operator approves and funds the wallet
});

// describe → dry_run → budget check → invoke; refused (nothing runs) when the budget does not allow it.
const { invocation } = await client.runPaidCapability('documents.document.upload', {
  file_name: 'hello.txt',
  mime_type: 'text/plain',
  content_base64: Buffer.from('Hello from Invoice Bot\n').toString('base64'),
});
console.log(invocation.status, invocation.result?.document.sha256, invocation.cost);
prompt.close();
