import { createClient, type GatewayClient, GatewayError } from '@agw/client';
import { createAdminClient } from '@agw/client/admin';
import {
  type CapabilityId,
  type CapabilityIO,
  createValidator,
  findCapabilityContract,
} from '@agw/contracts';
import type { GatewayFixture } from './gateway.js';

const validator = createValidator();

/**
 * A typed SDK client of one installation that runs a capability to its result: a `pending_approval`
 * answer (risk `high`: bank accounts, payments, void) is approved by the operator through the admin
 * client and invoked again with the token, as an operator and an agent would. Every result is checked
 * against the capability's output schema.
 */
export function billingClient(gateway: GatewayFixture, apiKey: string) {
  const client: GatewayClient = createClient({ baseUrl: gateway.url, apiKey, maxRetries: 0 });
  const admin = createAdminClient({ baseUrl: gateway.url, operatorKey: gateway.operatorKey });
  async function run<Id extends CapabilityId>(
    id: Id,
    params: CapabilityIO[Id]['input'],
  ): Promise<CapabilityIO[Id]['output']> {
    let answer = await client.invoke(id, params);
    if (answer.status === 'pending_approval') {
      const approval = answer.approval as { approval_id: string; approval_token: string };
      await admin.approveApproval(approval.approval_id);
      answer = await client.invoke(id, params, { approvalToken: approval.approval_token });
    }
    if (answer.status !== 'succeeded') throw new Error(`${id} answered ${answer.status}`);
    const contract = findCapabilityContract(id);
    if (contract === undefined) throw new Error(`no contract ${id}`);
    const verdict = validator.validate(contract.output_schema, (answer as { result: unknown }).result);
    if (!verdict.valid) throw new Error(`${id} result breaks its output schema: ${JSON.stringify(verdict)}`);
    return (answer as { result: CapabilityIO[Id]['output'] }).result;
  }
  return { client, run };
}

/** The GatewayError a call ends with; fails the test when it succeeds or throws anything else. */
export async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

/**
 * Saves what a German issuer needs before its invoices can be e-invoiced: a bank account and an issuer
 * profile paying into it (`profile` adds or overrides fields).
 */
export async function saveGermanIssuer(
  billing: ReturnType<typeof billingClient>,
  profile: Record<string, unknown> = {},
): Promise<void> {
  const bank = await billing.run('billing.bank_account.save', {
    display_name: 'Main account',
    account_holder: 'Acme Prüftechnik GmbH',
    iban: 'DE89 3704 0044 0532 0130 00',
    bic: 'COBADEFFXXX',
  });
  await billing.run('billing.profile.save', {
    display_name: 'Acme Prüftechnik GmbH',
    issuer_name: 'Acme Prüftechnik GmbH',
    issuer_address_line1: 'Große Straße 1',
    issuer_postal_code: '10115',
    issuer_city: 'Berlin',
    issuer_country: 'DE',
    issuer_vat_id: 'DE123456789',
    issuer_email: 'rechnung@acme.example',
    locale: 'de-DE',
    default_bank_account_id: bank.bank_account.id,
    ...profile,
  });
}
