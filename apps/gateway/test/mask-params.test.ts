// The console's params table: what an operator sees of a run before approving it, secrets masked.
import { describe, expect, it } from 'vitest';
import { MAX_PARAM_ROWS, maskIban, maskParams, revealParam } from '../src/admin/mask-params.js';

const row = (rows: ReturnType<typeof maskParams>, label: string) => rows.find((r) => r.label === label);

describe('maskParams', () => {
  it('shows an IBAN as country, check digits and last four, with or without spaces', () => {
    expect(maskIban('DE89370400440532013000')).toBe('DE89 •••• 3000');
    expect(maskIban('DE89 3704 0044 0532 0130 00')).toBe('DE89 •••• 3000');
    const rows = maskParams({ iban: 'DE89 3704 0044 0532 0130 00', account_holder: 'Acme GmbH' });
    expect(row(rows, 'iban')).toEqual({
      label: 'iban',
      value: 'DE89 •••• 3000',
      masked: true,
      revealable: true,
    });
    expect(row(rows, 'account_holder')).toEqual({
      label: 'account_holder',
      value: 'Acme GmbH',
      masked: false,
    });
  });

  it('masks an IBAN-shaped value under any name, and a short iban field whole', () => {
    expect(row(maskParams({ counterparty: 'GB82WEST12345698765432' }), 'counterparty')?.value).toBe(
      'GB82 •••• 5432',
    );
    expect(row(maskParams({ iban: 'DE89' }), 'iban')?.value).toBe('••••••••');
  });

  it('masks keys, tokens, secrets and passwords whole, nested ones too', () => {
    const rows = maskParams({
      api_key: 'sk_live_abc',
      webhook: { secret: 's3cr3t', url: 'https://example.com/hook' },
      smtp_password: 'hunter2',
      credentials: { user: 'u', pass: 'p' },
      note: 'agw_ak_abcdefghijkl.zzzz',
      key: 'k',
    });
    for (const label of ['api_key', 'webhook.secret', 'smtp_password', 'credentials', 'key']) {
      expect(row(rows, label)).toEqual({ label, value: '••••••••', masked: true, revealable: true });
    }
    // This gateway's own keys and approval tokens cannot even be revealed.
    expect(row(rows, 'note')).toEqual({ label: 'note', value: '••••••••', masked: true });
    expect(row(rows, 'webhook.url')?.value).toBe('https://example.com/hook');
    expect(JSON.stringify(rows)).not.toMatch(/sk_live|s3cr3t|hunter2|zzzz/);
  });

  it('reveals the full value of a revealable masked row only', () => {
    const params = {
      iban: 'DE89 3704 0044 0532 0130 00',
      credentials: { user: 'u' },
      api_key: 'agw_ak_abcdefghijkl.zzzz',
      holder: 'Acme',
    };
    expect(revealParam(params, 'iban')).toBe('DE89 3704 0044 0532 0130 00');
    expect(revealParam(params, 'credentials')).toBe('{"user":"u"}');
    expect(revealParam(params, 'api_key')).toBeUndefined();
    expect(revealParam(params, 'holder')).toBeUndefined();
    expect(revealParam(params, 'nothing')).toBeUndefined();
  });

  it('keeps amounts and ordinary fields readable, lists as indexed paths', () => {
    const rows = maskParams({
      document_id: '0b4c2c8e-1d7e-4a57-9a4e-0c1f6a1d2b3c',
      amount: 378.27,
      lines: [{ quantity: 2 }],
      keywords: [],
      paid: true,
      reference: null,
    });
    expect(row(rows, 'amount')?.value).toBe('378.27');
    expect(row(rows, 'lines[0].quantity')?.value).toBe('2');
    expect(row(rows, 'keywords')?.value).toBe('[]');
    expect(row(rows, 'paid')?.value).toBe('true');
    expect(row(rows, 'reference')?.value).toBe('null');
    expect(row(rows, 'document_id')?.masked).toBe(false);
  });

  it('stops at a bounded number of rows and says how many more there are', () => {
    const rows = maskParams({ items: Array.from({ length: MAX_PARAM_ROWS + 5 }, (_, i) => i) });
    expect(rows).toHaveLength(MAX_PARAM_ROWS + 1);
    expect(rows.at(-1)).toEqual({ label: '…', value: '5 more', masked: false });
  });
});
