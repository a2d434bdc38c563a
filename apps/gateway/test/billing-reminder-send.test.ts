// Issue 28, finding 7: a German business dunning a customer. Under a de-DE profile a reminder is a
// German letter: billing.reminder.pdf renders it (level, invoice, open amount, fee, interest, the total,
// pay-by date, bank details), charged once; billing.reminder.send mails it in German with that PDF
// attached, once per idempotency key; a second send with another key mails it again, up to 10 sends; a
// reminder of a paid invoice, or of another organization, is not sent.

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingClient, refusal, saveGermanIssuer } from './helpers/billing.js';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { attachmentsOf, readDevMailbox, waitUntil } from './helpers/mail-sink.js';

const exec = promisify(execFile);
const gateway = useGateway();
let billing: ReturnType<typeof billingClient>;
let accountId: string;

/** The text pdftotext reads from `bytes`, layout kept, non-breaking spaces as spaces. */
async function pdfText(bytes: Buffer): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'agw-reminder-'));
  try {
    const file = join(directory, 'reminder.pdf');
    await writeFile(file, bytes);
    const { stdout } = await exec('pdftotext', ['-layout', file, '-']);
    return stdout.replace(/\u00a0/g, ' ');
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** An issued invoice of 595 € (500 + 19 %), due 16.02.2026, with a reminder of 02.03.2026 (fee 5, interest 4.12). */
async function remindedInvoice(): Promise<{ invoiceId: string; number: string; reminderId: string }> {
  const draft = await billing.run('billing.document.create_draft', {
    document_type: 'invoice',
    document_date: '2026-02-02',
    due_date: '2026-02-16',
    account_id: accountId,
    lines: [{ item_name: 'Wartung', quantity: 1, unit_price: 500, tax_percent: 19 }],
  });
  const issued = await billing.run('billing.document.finalize', { document_id: draft.document_id });
  const { reminder } = await billing.run('billing.reminder.create', {
    invoice_id: draft.document_id,
    reminder_date: '2026-03-02',
    fee_amount: 5,
    interest_amount: 4.12,
  });
  return { invoiceId: draft.document_id, number: issued.number as string, reminderId: reminder.id };
}

/** The dev mailbox's mails whose subject names `number`. */
async function mailsAbout(number: string) {
  return (await readDevMailbox(gateway.dataDir)).filter((mail) => mail.subject.includes(number));
}

beforeAll(async () => {
  billing = billingClient(gateway, (await approvedInstallation(gateway, '100')).key);
  await saveGermanIssuer(billing, { number_patterns: { invoice: 'RE-{YYYY}-{SEQ:5}' } });
  accountId = (
    await billing.run('billing.account.save', {
      name: 'Müller Bau GmbH',
      address_line1: 'Amtsweg 5',
      postal_code: '20095',
      city: 'Hamburg',
      country_code: 'DE',
      email: 'buchhaltung@mueller-bau.example',
    })
  ).account.id;
});

describe('a reminder as a German letter', () => {
  it('billing.reminder.pdf: the German letter with the invoice, the amounts in German notation, pay-by date and bank; charged once', async () => {
    const { number, reminderId } = await remindedInvoice();
    const first = await billing.client.invoke('billing.reminder.pdf', { reminder_id: reminderId });
    const second = await billing.client.invoke('billing.reminder.pdf', { reminder_id: reminderId });
    expect(first).toMatchObject({ status: 'succeeded', cost: { credits: '0.05' } });
    expect(second).toMatchObject({ status: 'succeeded' });
    expect(second).not.toHaveProperty('cost');
    const pdf = (
      first as { result: { pdf_base64: string; filename: string; language: string; pay_by: string } }
    ).result;
    expect((second as { result: { pdf_base64: string } }).result.pdf_base64).toBe(pdf.pdf_base64);
    expect(pdf).toMatchObject({
      filename: `Zahlungserinnerung-${number}.pdf`,
      language: 'de',
      pay_by: '2026-03-09',
    });

    const text = await pdfText(Buffer.from(pdf.pdf_base64, 'base64'));
    expect(text).toContain('Zahlungserinnerung');
    expect(text).toContain(`zu Rechnung ${number} vom 02.02.2026`);
    expect(text).toMatch(/Fällig seit\s+16\.02\.2026/);
    expect(text).toMatch(new RegExp(`Offener Betrag aus Rechnung ${number}\\s+595,00 €`));
    expect(text).toMatch(/Mahngebühr\s+5,00 €/);
    expect(text).toMatch(/Verzugszinsen\s+4,12 €/);
    expect(text).toMatch(/Zu zahlender Betrag\s+604,12 €/);
    expect(text).toContain('Bitte überweisen Sie den Betrag bis 09.03.2026 auf:');
    expect(text).toContain('DE89 3704 0044 0532 0130 00');
    expect(text).toContain(`Verwendungszweck: ${number}`);
    expect(text).toContain(`Unsere Rechnung ${number} vom 02.02.2026 war am 16.02.2026 fällig.`);
    expect(text).not.toMatch(/Payment reminder|Amount/);
  });

  it('billing.reminder.send: a German mail with the PDF to the customer, once per key; another key sends again', async () => {
    const { number, reminderId } = await remindedInvoice();
    const key = `reminder-send-${reminderId}`;
    const first = await billing.client.invoke(
      'billing.reminder.send',
      { reminder_id: reminderId },
      { idempotencyKey: key },
    );
    const replay = await billing.client.invoke(
      'billing.reminder.send',
      { reminder_id: reminderId },
      { idempotencyKey: key },
    );
    expect(first).toMatchObject({ status: 'succeeded', cost: { credits: '0.1' } });
    expect(replay).toMatchObject({
      status: 'succeeded',
      replayed: true,
      result: (first as { result: unknown }).result,
    });
    const sent = (
      first as {
        result: {
          reminder: { status: string; sent_channel: string; sent_at: string };
          delivery: { to: string; subject: string; send_count: number; attachment: { filename: string } };
          previously_sent_at: string | null;
        };
      }
    ).result;
    expect(sent.reminder).toMatchObject({
      status: 'sent',
      sent_channel: 'email',
      sent_at: expect.any(String),
    });
    expect(sent.delivery).toMatchObject({
      to: 'buchhaltung@mueller-bau.example',
      subject: `Zahlungserinnerung: Rechnung ${number}`,
      send_count: 1,
      attachment: { filename: `Zahlungserinnerung-${number}.pdf` },
    });
    expect(sent.previously_sent_at).toBeNull();

    const [mail] = await waitUntil(async () => {
      const found = await mailsAbout(number);
      return found.length > 0 ? found : undefined;
    });
    // The replay staged nothing: give a second mail time to arrive, then count.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await mailsAbout(number)).toHaveLength(1);
    expect(mail?.to).toContain('buchhaltung@mueller-bau.example');
    expect(mail?.subject).toBe(`Zahlungserinnerung: Rechnung ${number}`);
    expect(mail?.raw).toContain('Guten Tag,');
    expect(mail?.raw).toContain('Mit freundlichen Gr');
    const files = attachmentsOf(mail as NonNullable<typeof mail>);
    expect(files.map((file) => [file.filename, file.contentType])).toEqual([
      [`Zahlungserinnerung-${number}.pdf`, 'application/pdf'],
    ]);
    const archived = await billing.run('billing.reminder.pdf', { reminder_id: reminderId });
    expect(files[0]?.content.toString('base64')).toBe(archived.pdf_base64);
    expect(await pdfText(files[0]?.content as Buffer)).toContain('Zahlungserinnerung');

    const again = await billing.run('billing.reminder.send', {
      reminder_id: reminderId,
      to: 'einkauf@mueller-bau.example',
    });
    expect(again.delivery).toMatchObject({ to: 'einkauf@mueller-bau.example', send_count: 2 });
    expect(again.previously_sent_at).toBe(sent.reminder.sent_at);
    await waitUntil(async () => ((await mailsAbout(number)).length === 2 ? true : undefined));
  });

  it('refuses to send a reminder of a paid invoice and one of another organization', async () => {
    const { invoiceId, number, reminderId } = await remindedInvoice();
    await billing.run('billing.payment.record', {
      document_id: invoiceId,
      amount: 595,
      payment_date: '2026-03-03',
    });
    const paid = await refusal(billing.run('billing.reminder.send', { reminder_id: reminderId }));
    expect(paid.code).toBe('conflict');
    expect(paid.message).toContain(number);
    // Another organization's reminder of an unpaid invoice: missing to it, and its send counts nothing.
    const open = await remindedInvoice();
    const other = billingClient(gateway, (await approvedInstallation(gateway, '10')).key);
    const foreign = await refusal(other.run('billing.reminder.send', { reminder_id: open.reminderId }));
    expect(foreign.code).toBe('not_found');
    const own = await billing.run('billing.reminder.send', { reminder_id: open.reminderId });
    expect(own.delivery).toMatchObject({ send_count: 1 });
  });

  it('sends one reminder at most 10 times: the 11th is refused, naming the limit', async () => {
    const { reminderId } = await remindedInvoice();
    for (let count = 1; count <= 10; count += 1) {
      const sent = await billing.run('billing.reminder.send', { reminder_id: reminderId });
      expect(sent.delivery.send_count).toBe(count);
    }
    const eleventh = await refusal(billing.run('billing.reminder.send', { reminder_id: reminderId }));
    expect(eleventh.code).toBe('conflict');
    expect(eleventh.message).toContain('was sent 10 times');
  });
});
