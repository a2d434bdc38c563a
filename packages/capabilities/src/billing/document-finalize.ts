import { defineCapabilityHandler, preflightOf } from '../define.js';
import { runStatement } from '../sql.js';
import { billingContract, conflict, documentRecord, iso, notFound, PAYABLE_TYPES } from './common.js';
import { issuerSnapshot } from './draft.js';
import { formatAmount, money } from './money.js';
import { counterYear, DEFAULT_NUMBER_PATTERNS, formatNumber } from './numbering.js';
import type { BankAccountSnapshot, BillingDocumentRow } from './records.js';
import { OPEN_STATUSES } from './records.js';
import {
  issueDocument,
  nextNumber,
  selectDocument,
  selectDocumentForUpdate,
  updateDocumentMoney,
} from './sql.js';
import {
  type BankAccountRow,
  type ProfileRow,
  selectBankAccount,
  selectDefaultBankAccount,
  selectProfile,
} from './sql-settings.js';
import { vatAccountingAtFinalize } from './vat-accounting.js';

function bankSnapshot(row: BankAccountRow | undefined): BankAccountSnapshot | null {
  if (row === undefined) return null;
  return {
    id: row.id,
    display_name: row.display_name,
    account_holder: row.account_holder,
    iban: row.iban,
    bic: row.bic,
    bank_name: row.bank_name,
    payment_reference_template: row.payment_reference_template,
    creditor_identifier: row.creditor_identifier,
  };
}

/** The invoices §14 Abs. 4 Nr. 6 UStG asks a date of supply (Leistungsdatum) of. */
const INVOICE_TYPES = ['invoice', 'credit_note', 'self_billing_invoice'];

/**
 * The service date an issued document gets when it has none (issueDocument keeps one it has): the
 * document date for an invoice of a German issuer (§14 Abs. 4 Nr. 6 UStG requires one; "Leistungsdatum
 * entspricht Rechnungsdatum" is what German practice writes when no other is given), else none
 * (docs/decisions.md, billing).
 */
function serviceDateOf(
  document: BillingDocumentRow,
  issuer: { issuer_country?: string | null },
): string | null {
  if (!INVOICE_TYPES.includes(document.document_type)) return null;
  return issuer.issuer_country === 'DE' ? document.document_date : null;
}

/**
 * The rules a credit note `credit` must meet to settle against the invoice it corrects (`invoice`,
 * undefined: none such): the invoice is open and its balance covers the credit note's total.
 */
function creditRules(credit: BillingDocumentRow, invoice: BillingDocumentRow | undefined) {
  if (invoice === undefined) notFound('document', credit.corrects_document_id as string);
  if (!OPEN_STATUSES.includes(invoice.status)) {
    conflict(
      `The corrected invoice ${invoice.number} is ${invoice.status}; a credit note settles an open balance.`,
    );
  }
  const balance = money(invoice.balance).minus(money(credit.total));
  if (balance.isNegative()) {
    conflict(
      `The credit note total ${formatAmount(credit.total, credit.currency)} exceeds the open balance ${formatAmount(invoice.balance, invoice.currency)} ${invoice.currency} of invoice ${invoice.number}.`,
      'Lower the credit note (a new draft) to at most the open balance; refund paid money outside the gateway.',
    );
  }
  return { invoice, balance };
}

/**
 * The rules a finalize of `input` must meet on `document` (undefined: none such), checked before a
 * number is taken: it is a draft, and a foreign-currency document with VAT has an exchange rate.
 */
function finalizeRules(input: FinalizeInput, document: BillingDocumentRow | undefined) {
  if (document === undefined) notFound('document', input.document_id);
  if (document.status !== 'draft') {
    conflict(
      `Document ${document.id} is already ${document.status}${document.number ? ` as ${document.number}` : ''}; only a draft is finalized.`,
    );
  }
  return { document, accounting: vatAccountingAtFinalize(document, input.exchange_rate) };
}

interface FinalizeInput {
  document_id: string;
  exchange_rate?: number;
}

/**
 * A finalized credit note that corrects an invoice settles against it: the invoice's balance goes down
 * by the credit note's total (refused when that exceeds the balance: paid money is refunded outside),
 * and an invoice credited in full without payments becomes `void`, one partly paid and credited for the
 * rest `paid`. The credit note itself is then `closed` with nothing due.
 */
async function settleCredit(
  sql: Parameters<typeof runStatement>[0],
  org: string,
  credit: BillingDocumentRow,
  now: Date,
): Promise<void> {
  if (credit.corrects_document_id === null) return;
  const locked = (
    await runStatement<BillingDocumentRow>(sql, selectDocumentForUpdate, [org, credit.corrects_document_id])
  ).rows[0];
  const { invoice, balance } = creditRules(credit, locked);
  const credited = money(invoice.credited_total).plus(money(credit.total));
  const paid = money(invoice.paid_total);
  let status = invoice.status;
  let paymentStatus = invoice.payment_status;
  if (balance.isZero()) {
    [status, paymentStatus] = paid.isZero() ? ['void', 'not_applicable'] : ['paid', 'paid'];
  }
  await runStatement(sql, updateDocumentMoney, [
    org,
    invoice.id,
    status,
    paymentStatus,
    paid.toFixed(),
    credited.toFixed(),
    balance.toFixed(),
    balance.isZero() && !paid.isZero() ? now : invoice.paid_at,
    now,
  ]);
}

/**
 * `billing.document.finalize`: issues a draft. The number comes from the counter row of its pattern
 * and year, taken with an upsert that locks the row until this transaction ends: concurrent finalizes
 * queue on it and a rolled-back one returns its number, so numbers are unique and gap-free. The issuer
 * and bank account are copied from the profile now and, with lines and totals, never change again.
 * An invoice of a German issuer without a service date takes its document date as the Leistungsdatum.
 */
export const billingDocumentFinalizeHandler = defineCapabilityHandler<FinalizeInput, unknown>({
  contract: billingContract('billing.document.finalize'),
  // The same rules on the unlocked rows: the draft, its exchange rate, and a credit note's invoice.
  async preflight(input, ctx) {
    const org = ctx.organizationId;
    const read = (id: string) =>
      runStatement<BillingDocumentRow>(ctx.sql, selectDocument, [org, id]).then(({ rows }) => rows[0]);
    const document = await read(input.document_id);
    return preflightOf(async () => {
      const { document: draft } = finalizeRules(input, document);
      if (draft.document_type === 'credit_note' && draft.corrects_document_id !== null) {
        creditRules(draft, await read(draft.corrects_document_id));
      }
      return undefined;
    }, '/params/document_id');
  },
  async handle(input, ctx) {
    const org = ctx.organizationId;
    const locked = (
      await runStatement<BillingDocumentRow>(ctx.sql, selectDocumentForUpdate, [org, input.document_id])
    ).rows[0];
    // Before a number is taken: a refusal here must not use one up (the transaction rolls back anyway).
    const { document, accounting } = finalizeRules(input, locked);
    const profile =
      document.profile_id === null
        ? undefined
        : (await runStatement<ProfileRow>(ctx.sql, selectProfile, [org, document.profile_id])).rows[0];
    const bank =
      profile?.default_bank_account_id != null
        ? (
            await runStatement<BankAccountRow>(ctx.sql, selectBankAccount, [
              org,
              profile.default_bank_account_id,
            ])
          ).rows[0]
        : (await runStatement<BankAccountRow>(ctx.sql, selectDefaultBankAccount, [org])).rows[0];

    const pattern =
      profile?.number_patterns[document.document_type] ??
      (DEFAULT_NUMBER_PATTERNS[document.document_type] as string);
    const year = counterYear(pattern, document.document_date);
    const { rows } = await runStatement<{ last_value: string }>(ctx.sql, nextNumber, [
      org,
      pattern,
      document.document_type,
      year,
    ]);
    const sequence = (rows[0] as { last_value: string }).last_value;
    const issuer = profile === undefined ? document.issuer : issuerSnapshot(profile);
    const number = formatNumber(pattern, document.document_date, sequence);

    const payable = PAYABLE_TYPES.includes(document.document_type);
    const settlesInvoice = document.document_type === 'credit_note' && document.corrects_document_id !== null;
    const status = settlesInvoice ? 'closed' : 'open';
    const paymentStatus = payable ? 'unpaid' : 'not_applicable';
    const balance = settlesInvoice ? '0' : document.total;
    const issued = (
      await runStatement<BillingDocumentRow>(ctx.sql, issueDocument, [
        org,
        document.id,
        number,
        sequence,
        status,
        paymentStatus,
        JSON.stringify(issuer),
        JSON.stringify(bankSnapshot(bank)),
        balance,
        ctx.now,
        accounting.currency,
        accounting.rate,
        accounting.taxTotal,
        serviceDateOf(document, issuer),
      ])
    ).rows[0] as BillingDocumentRow;
    if (settlesInvoice) await settleCredit(ctx.sql, org, issued, ctx.now);
    return { document: documentRecord(issued), number, issued_at: iso(ctx.now) as string };
  },
});
