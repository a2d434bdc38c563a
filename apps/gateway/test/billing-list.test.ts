// billing.document.list / search over HTTP with the typed SDK: every value of the `status` filter
// (document statuses, payment statuses, and `overdue` computed from the gateway's clock), the date
// range, every sort in both directions and paging, on one organization's known set of documents.

import { type CapabilityIO, findCapabilityContract } from '@agw/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingClient } from './helpers/billing.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';

const gateway = useGateway();
let billing: ReturnType<typeof billingClient>;

/** `YYYY-MM-DD` of today plus `days` (UTC, as the gateway's clock). */
function day(days: number): string {
  const at = new Date();
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}

/** The documents by the letter the expectations name them with. */
const ids: Record<string, string> = {};

type Doc = { document_type: 'quote' | 'invoice' | 'credit_note'; date: string; price: number } & {
  due?: string;
  account?: string;
  corrects?: string;
};

async function draft(letter: string, doc: Doc): Promise<string> {
  const created = await billing.run('billing.document.create_draft', {
    document_type: doc.document_type,
    document_date: doc.date,
    ...(doc.due === undefined ? {} : { due_date: doc.due }),
    ...(doc.account === undefined ? {} : { account_id: doc.account }),
    ...(doc.corrects === undefined ? {} : { corrects_document_id: doc.corrects }),
    title: `Document ${letter}`,
    lines: [{ item_name: `Line ${letter}`, quantity: 1, unit_price: doc.price, tax_percent: 0 }],
  });
  ids[letter] = created.document_id;
  return created.document_id;
}

async function issued(letter: string, doc: Doc): Promise<string> {
  const id = await draft(letter, doc);
  await billing.run('billing.document.finalize', { document_id: id });
  return id;
}

beforeAll(async () => {
  billing = billingClient(gateway, (await approvedInstallation(gateway, '100')).key);
  await billing.run('billing.profile.save', {
    display_name: 'Lister',
    issuer_name: 'Lister GmbH',
    issuer_country: 'DE',
    issuer_vat_id: 'DE123456789',
  });
  // Names whose order is the same in every collation (C and en_US alike): one case, letters only.
  const anna = (
    await billing.run('billing.account.save', { name: 'Anna', country_code: 'DE', email: 'anna@example.com' })
  ).account.id;
  const bert = (await billing.run('billing.account.save', { name: 'Bert', country_code: 'DE' })).account.id;
  await draft('A', { document_type: 'quote', date: '2025-01-10', price: 10, account: bert });
  await issued('B', { document_type: 'quote', date: '2025-02-10', price: 20, account: anna });
  await draft('C', { document_type: 'invoice', date: '2025-03-10', price: 30, due: day(-1) });
  await issued('D', { document_type: 'invoice', date: day(-30), due: day(-1), price: 40, account: anna });
  const e = await issued('E', { document_type: 'invoice', date: day(0), due: day(1), price: 50 });
  // No due date: due on its date, as billing.reminder.create reads it.
  await issued('F', { document_type: 'invoice', date: day(-2), price: 60 });
  const g = await issued('G', { document_type: 'invoice', date: day(-40), due: day(-10), price: 70 });
  await billing.run('billing.payment.record', { document_id: g, amount: 10 });
  const h = await issued('H', { document_type: 'invoice', date: day(-40), due: day(-10), price: 80 });
  await billing.run('billing.payment.record', { document_id: h, amount: 80 });
  const i = await issued('I', { document_type: 'invoice', date: day(-40), due: day(-10), price: 90 });
  await billing.run('billing.document.void', { document_id: i });
  const k = await issued('K', {
    document_type: 'invoice',
    date: day(-20),
    due: day(-5),
    price: 100,
    account: anna,
  });
  await billing.run('billing.document.send', { document_id: k });
  await issued('M', { document_type: 'credit_note', date: day(0), price: 5, corrects: e });
}, 120_000);

const letters = (records: Array<{ id: string }>) =>
  records.map((record) => Object.keys(ids).find((letter) => ids[letter] === record.id) ?? record.id);

type Status = NonNullable<CapabilityIO['billing.document.list']['input']['status']>;
/** The values the contract's `status` filter accepts (a union of literals). */
const contract = findCapabilityContract('billing.document.list');
const STATUSES: Status[] =
  (
    contract?.input_schema as { properties: { status: { anyOf: Array<{ const: string }> } } } | undefined
  )?.properties.status.anyOf.map((literal) => literal.const as Status) ?? [];

describe('the status filter', () => {
  /** Every value of the contract's status list and the documents it lists. */
  const expected: Record<string, string> = {
    draft: 'AC',
    open: 'BDEF',
    sent: 'K',
    accepted: '',
    declined: '',
    confirmed: '',
    partially_paid: 'G',
    paid: 'H',
    void: 'I',
    cancelled: '',
    written_off: '',
    closed: 'M',
    imported: '',
    // payment_status values (listed by total, so M, 5.00, comes first): a draft invoice is `unpaid`
    // too (the record says so).
    unpaid: 'CDEFK',
    partial: 'G',
    // Issued, money owed, due before today: D (due yesterday), F (no due date, dated 2 days ago),
    // G (partly paid), K (sent). Not E (due tomorrow), C (a draft), H (paid), I (void).
    overdue: 'DFGK',
    refunded: '',
    not_applicable: 'MABI',
  };

  it('covers every value the contract accepts', () => {
    expect(STATUSES).toHaveLength(18);
    expect(Object.keys(expected).sort()).toEqual([...STATUSES].sort());
  });

  it.each(STATUSES.map((status) => [status, expected[status] ?? '?']))(
    'status %s lists %s',
    async (status, want) => {
      for (const id of ['billing.document.list', 'billing.document.search'] as const) {
        const page = await billing.run(id, { status, limit: 100, sort_by: 'total', ascending: true });
        expect(letters(page.records).join(''), `${id} ${status}`).toBe(want);
        for (const record of page.records) {
          if (status === 'overdue') expect(record.balance).toBeGreaterThan(0);
          else if (['unpaid', 'partial', 'refunded', 'not_applicable'].includes(status))
            expect(record.payment_status).toBe(status);
          else expect(record.status).toBe(status);
        }
      }
    },
  );

  it('combines overdue with a document type, a search and the open filter', async () => {
    const run = (params: Record<string, unknown>) =>
      billing.run('billing.document.search', {
        status: 'overdue',
        sort_by: 'total',
        ascending: true,
        ...params,
      });
    expect(letters((await run({ search: 'anna' })).records)).toEqual(['D', 'K']);
    expect(letters((await run({ open_filter: 'open' })).records)).toEqual(['D', 'F', 'G', 'K']);
    expect((await run({ open_filter: 'paid' })).records).toEqual([]);
    expect((await run({ document_type: 'quote' })).records).toEqual([]);
  });
});

describe('the date range', () => {
  it('includes both ends and combines with a status', async () => {
    const run = async (params: Record<string, unknown>) =>
      letters(
        (await billing.run('billing.document.list', { ...params, sort_by: 'document_date', ascending: true }))
          .records,
      ).join('');
    expect(await run({ date_from: '2025-02-10', date_to: '2025-03-10' })).toBe('BC');
    expect(await run({ date_to: '2025-01-10' })).toBe('A');
    expect(await run({ date_from: '2025-01-11', date_to: '2025-02-09' })).toBe('');
    expect(await run({ date_from: '2025-01-01', date_to: '2025-12-31', status: 'draft' })).toBe('AC');
    expect(await run({ date_from: day(-2), status: 'overdue' })).toBe('F');
  });
});

describe('sorting and paging', () => {
  const SORTS = ['document_date', 'created_at', 'total', 'number', 'counterparty_name', 'status'] as const;

  type Row = Record<(typeof SORTS)[number], string | number | null> & { id: string };
  /** PostgreSQL's order: nulls last ascending and first descending, then id in the same direction. */
  function expectedOrder(rows: Row[], by: (typeof SORTS)[number], ascending: boolean): string[] {
    const sign = ascending ? 1 : -1;
    const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
    return [...rows]
      .sort((a, b) => {
        const x = a[by];
        const y = b[by];
        if (x === null || y === null) {
          if (x !== y) return (x === null ? 1 : -1) * sign;
        } else if (x !== y) return compare(x, y) * sign;
        return compare(a.id, b.id) * sign;
      })
      .map((row) => row.id);
  }

  it.each(SORTS.flatMap((by) => [[by, true] as const, [by, false] as const]))(
    'sort_by %s ascending %s orders every document, ties by id',
    async (by, ascending) => {
      const page = await billing.run('billing.document.list', { sort_by: by, ascending, limit: 100 });
      expect(page.records).toHaveLength(Object.keys(ids).length);
      expect(page.records.map((r) => r.id)).toEqual(
        expectedOrder(page.records as unknown as Row[], by, ascending),
      );
      // A field with distinct values pins the order down completely.
      if (by === 'total') {
        expect(letters(page.records).join('')).toBe(ascending ? 'MABCDEFGHIK' : 'KIHGFEDCBAM');
      }
    },
  );

  it('defaults to newest first', async () => {
    const page = await billing.run('billing.document.list', {});
    expect(letters(page.records).join('')).toBe('MKIHGFEDCBA');
    expect(page).toMatchObject({ count: 11, limit: 20, offset: 0 });
  });

  it('pages with limit and offset: the pages add up to the whole list; count is the page length', async () => {
    const whole = letters(
      (await billing.run('billing.document.list', { sort_by: 'total', ascending: true, limit: 100 })).records,
    );
    const pages: string[][] = [];
    for (let offset = 0; offset < 12; offset += 4) {
      const page = await billing.run('billing.document.list', {
        sort_by: 'total',
        ascending: true,
        limit: 4,
        offset,
      });
      expect(page).toMatchObject({ limit: 4, offset, count: page.records.length });
      pages.push(letters(page.records));
    }
    expect(pages.map((p) => p.length)).toEqual([4, 4, 3]);
    expect(pages.flat()).toEqual(whole);
    const beyond = await billing.run('billing.document.list', { limit: 4, offset: 20 });
    expect(beyond).toMatchObject({ records: [], count: 0 });
  });
});
