// One charge roll-up at a time per database: in a fleet the gateways' periodic roll-ups skip their turn
// while another runs (two at once wait on each other's `wallets` rows), and a direct call waits for it,
// so a caller that rolls up before reading a balance still finds every charge rolled up. PostgreSQL
// only: on PGlite the one session is the lock, and a held transaction blocks the second caller before
// it can ask.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { rollUpCharges } from '../src/ports/wallet-rollup.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { holdRollUpLock, unrolledCharges } from './helpers/ledger.js';

const gateway = useGateway();
let organizationId: string;

beforeAll(async () => {
  ({ organizationId } = await approvedInstallation(gateway));
}, 120_000);

const unrolled = async (scope: string) =>
  (await unrolledCharges(gateway.knex, organizationId)).includes(scope);

describe.runIf(process.env.DATABASE_URL)('the charge roll-up while another one runs', () => {
  it('skips its periodic turn, and a direct call waits for the other and then rolls the charge up', async () => {
    const scope = `test:${randomUUID()}`;
    await gateway.knex('wallet_ledger').insert({
      organization_id: organizationId,
      amount: '1.5',
      kind: 'charge',
      idempotency_scope: scope,
      capability_id: 'documents.document.upload',
      occurred_at: new Date(),
    });
    // Another process's roll-up, as far as the lock goes.
    const other = await holdRollUpLock(gateway.knex);

    expect(await rollUpCharges(gateway.knex, { skipIfBusy: true })).toBe(0);
    expect(await unrolled(scope)).toBe(true);

    let settled = false;
    const direct = rollUpCharges(gateway.knex).then((count) => {
      settled = true;
      return count;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    await other.release();
    expect(await direct).toBeGreaterThanOrEqual(1);
    expect(await unrolled(scope)).toBe(false);
  });
});
