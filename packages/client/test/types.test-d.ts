/**
 * Type tests (vitest typecheck mode, and `tsc --noEmit -p packages/client`, whose tsconfig includes
 * test/): invoke, dryRun and describe are typed per capability id, so a wrong id or a wrong params field
 * does not compile, and `result` has the capability's output type. Each `@ts-expect-error` fails the
 * run if the line compiles. Nothing here executes: vitest checks the types of the calls only.
 */
import { expectTypeOf, test } from 'vitest';
import type { CapabilityOutput, GatewayClient, TypedInvokeResponse } from '../src/index.js';

declare const client: GatewayClient;

test('invoke, dryRun, describe and the paid helper are typed per capability id', async () => {
  // Right id and params compile, and result is the capability's output.
  const check = await client.invoke('wallet.agent_budget.guard.check', {
    capability_id: 'billing.document.create_draft',
    estimated_cost_credits: 5,
    window: 'task',
  });
  expectTypeOf(check.result).toEqualTypeOf<CapabilityOutput<'wallet.agent_budget.guard.check'> | undefined>();
  expectTypeOf(check.result?.allowed).toEqualTypeOf<boolean | undefined>();
  expectTypeOf(check.capability_id).toEqualTypeOf<'wallet.agent_budget.guard.check'>();

  const pdf = await client.invoke('billing.document.pdf', {
    document_id: '00000000-0000-4000-8000-000000000000',
  });
  expectTypeOf(pdf.result?.mime_type).toEqualTypeOf<'application/pdf' | undefined>();

  // @ts-expect-error: unknown capability id
  await client.invoke('billing.document.delete_everything', {});
  // @ts-expect-error: misspelled params field
  await client.invoke('wallet.agent_budget.guard.check', { capability: 'x', estimated_cost_credits: 1 });
  await client.invoke('wallet.agent_budget.guard.check', {
    capability_id: 'a.b.c',
    // @ts-expect-error: wrong params type
    estimated_cost_credits: '1',
  });
  // @ts-expect-error: missing required params field
  await client.invoke('billing.payment.record', { amount: 10 });
  await client.invoke('wallet.agent_budget.guard.check', {
    capability_id: 'a.b.c',
    estimated_cost_credits: 1,
    // @ts-expect-error: window outside the enum
    window: 'year',
  });

  await client.dryRun('documents.document.upload', {
    // @ts-expect-error: dryRun is typed the same way
    filename: 'a.txt',
    mime_type: 'text/plain',
    content_base64: '',
  });
  // @ts-expect-error: describe rejects unknown ids
  await client.describe('no.such.capability');
  const described = await client.describe('core.org.current.get');
  expectTypeOf(described.id).toEqualTypeOf<'core.org.current.get'>();

  // @ts-expect-error: the paid helper is typed too
  await client.runPaidCapability('documents.document.upload', { file_name: 'a.txt' });
  const paid = await client.runPaidCapability('documents.document.upload', {
    file_name: 'a.txt',
    mime_type: 'text/plain',
    content_base64: 'aGk=',
  });
  expectTypeOf(paid.invocation).toEqualTypeOf<TypedInvokeResponse<'documents.document.upload'>>();

  // Ids known only at run time go through `unchecked`.
  const loose = await client.unchecked.invoke(String(Math.random()), { anything: true });
  expectTypeOf(loose.result).toEqualTypeOf<unknown>();

  // @ts-expect-error: OTP bodies are typed from the contracts
  await client.claimOwnerOtp({ code: '123456' });
});
