// Issue 27, finding 7: a bank account's IBAN is checked against its country's rules (length, account
// format, national check digits) and its BIC against ISO 9362, by ibantools. Each refused IBAN below
// passes ISO 13616's mod 97 and was stored before; each refusal is a 400 at the field's pointer.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingBankAccountSaveHandler } from '../src/billing/bank-account-save.js';
import { type CapabilityContext, CapabilityError } from '../src/index.js';
import { createTestDatabase, recordingMail, type TestDatabase } from './helpers/pglite-sql.js';

const ORG = '0b6b1d8e-5f7a-4c3d-9e2f-1a2b3c4d5e6f';
const INSTALLATION = '7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f';
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.seed(ORG, INSTALLATION);
});
afterAll(() => database.db.close());

function context(): CapabilityContext {
  return {
    organizationId: ORG,
    installationId: INSTALLATION,
    now: new Date('2026-11-27T09:00:00Z'),
    sql: database.sql,
    ids: { uuid: randomUUID },
    signal: new AbortController().signal,
    wallet: {
      getSnapshot: async () => {
        throw new Error('saving a bank account reads no wallet');
      },
    },
    fetch: async () => {
      throw new Error('saving a bank account reaches no network');
    },
    mail: recordingMail(),
  };
}

const save = (params: { iban: string; bic?: string | null }) =>
  billingBankAccountSaveHandler.handle(
    { display_name: 'Main', account_holder: 'Acme GmbH', ...params },
    context(),
  ) as Promise<{ bank_account: { iban: string; bic: string | null } }>;

/** The refusal of a save: its code, pointer and message. */
async function refusal(params: { iban: string; bic?: string | null }) {
  const error = await save(params).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof CapabilityError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { code: error.code, pointer: error.violations[0]?.schema_pointer, message: error.message };
}

describe('billing.bank_account.save: IBAN', () => {
  it.each([
    [
      'a German IBAN one digit too long',
      'DE54 3704 0044 0532 0130 001',
      'has 23 characters; an IBAN of DE has 22',
    ],
    ['a German IBAN one digit too short', 'DE5137040044053201300', 'has 21 characters; an IBAN of DE has 22'],
    [
      'letters where Germany has account digits',
      'DE6937040044ABCDEFGHIJ',
      "the account part is not in DE's format",
    ],
    ['a country without IBANs', 'XX361234567890', "'XX' is not a country that has IBANs"],
    [
      'a French IBAN with wrong national check digits (RIB key)',
      'FR8420041010050500013M02607',
      'national check digits',
    ],
    ['wrong mod-97 check digits', 'DE00370400440532013000', 'the check digits are wrong (mod 97)'],
  ])('refuses %s at /params/iban', async (_, iban, reason) => {
    const refused = await refusal({ iban });
    expect(refused.code).toBe('validation_failed');
    expect(refused.pointer).toBe('/params/iban');
    expect(refused.message).toContain(reason);
  });

  it.each([
    ['DE89 3704 0044 0532 0130 00', 'DE89370400440532013000'],
    ['fr14 2004 1010 0505 0001 3m02 606', 'FR1420041010050500013M02606'],
    ['GB29NWBK60161331926819', 'GB29NWBK60161331926819'],
    ['NL91ABNA0417164300', 'NL91ABNA0417164300'],
    ['CH9300762011623852957', 'CH9300762011623852957'],
  ])('stores %s as %s', async (iban, stored) => {
    expect((await save({ iban })).bank_account.iban).toBe(stored);
  });
});

describe('billing.bank_account.save: BIC', () => {
  it.each([
    ['COBADEFFXXX', 'COBADEFFXXX'],
    ['cobadeff', 'COBADEFF'],
    ['DEUT DE DB BER', 'DEUTDEDBBER'],
    [null, null],
  ])('stores %s as %s', async (bic, stored) => {
    expect((await save({ iban: 'DE89370400440532013000', bic })).bank_account.bic).toBe(stored);
  });

  it.each([
    ['COBAXXFFXXX', "'XX' is not a country code"],
    ['C0BADEFF', 'is not a valid BIC'],
    ['COBADEFFXX', 'is not a valid BIC'],
    ['Commerz Bank AG', 'is not a valid BIC'],
  ])('refuses %s at /params/bic', async (bic, reason) => {
    const refused = await refusal({ iban: 'DE89370400440532013000', bic });
    expect(refused.code).toBe('validation_failed');
    expect(refused.pointer).toBe('/params/bic');
    expect(refused.message).toContain(reason);
  });
});
