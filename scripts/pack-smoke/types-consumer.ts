// Compiled by scripts/pack-smoke.sh with `tsc --noEmit`, strict, skipLibCheck false, against the packed
// packages' declarations (once with moduleResolution nodenext, once with bundler). Never run.

import { type CapabilityOutput, createClient } from '@agw/client';
import { createAdminClient } from '@agw/client/admin';
import { createAjv, createValidator, type InvokeResponse } from '@agw/contracts';
import { createAjvSchemaValidator, createStandardChain } from '@agw/guard';

const validator = createValidator();
const response: InvokeResponse = validator.check('InvokeResponse', {});
const ajv = createAjv();
ajv.addFormat('smoke', /./);
void [response, createAjvSchemaValidator, createStandardChain, createAdminClient];

export async function typedInvoke(): Promise<boolean | undefined> {
  const client = createClient({ baseUrl: 'http://127.0.0.1:1' });
  const check = await client.invoke('wallet.agent_budget.guard.check', {
    capability_id: 'billing.document.create_draft',
    estimated_cost_credits: 5,
    window: 'task',
  });
  const result: CapabilityOutput<'wallet.agent_budget.guard.check'> | undefined = check.result;
  // A wrong params object for a typed capability must not compile; tsc fails if this line is accepted.
  // @ts-expect-error: misspelled field, wrong type
  await client.invoke('wallet.agent_budget.guard.check', { capability: 'x', estimated_cost_credits: '1' });
  return result?.allowed;
}
