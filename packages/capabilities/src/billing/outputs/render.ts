import { CapabilityError } from '../../define.js';
import { levelName } from '../reminder-texts.js';
import { renderDocumentPdf } from './pdf/index.js';
import { renderReminderPdf } from './pdf/reminder.js';
import type { ReminderLetter } from './reminder-letter.js';
import type { Rendering, ValidationReport } from './rendering.js';
import { refuseInvalid, validateEInvoice } from './validate/index.js';
import {
  ciiFacturX,
  type EInvoiceSource,
  missingBusinessTerms,
  XRECHNUNG_CUSTOMIZATION_ID,
  xrechnungUbl,
} from './xml/index.js';

/** `RE-2026-00001` as a file name stem; a draft is `draft-` and the start of its id. */
function fileStem({ document }: EInvoiceSource): string {
  const name = document.number ?? `draft-${document.id.slice(0, 8)}`;
  return name.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/** Refuses what cannot make a valid e-invoice, naming the business terms to fill in. */
function requireBusinessTerms(stored: EInvoiceSource, format: 'xrechnung' | 'facturx'): void {
  const missing = missingBusinessTerms(stored, format);
  if (missing.length === 0) return;
  throw new CapabilityError(
    'validation_failed',
    missing.join(' '),
    missing.map((message) => ({ schema_pointer: '/params/document_id', keyword: 'e-invoice', message })),
  );
}

/** The PDF/A-3b of any document (a draft with its DRAFT mark). */
export async function renderPdf(stored: EInvoiceSource): Promise<Rendering> {
  const bytes = await renderDocumentPdf(stored);
  return { filename: `${fileStem(stored)}.pdf`, mimeType: 'application/pdf', bytes, details: {} };
}

/** XRechnung UBL of an issued invoice or credit note, validated; fatal findings refuse it. */
export async function renderXRechnung(stored: EInvoiceSource): Promise<Rendering> {
  requireBusinessTerms(stored, 'xrechnung');
  const xml = xrechnungUbl(stored);
  const validation: ValidationReport = await validateEInvoice(xml, 'xrechnung-ubl');
  refuseInvalid(validation);
  return {
    filename: `${fileStem(stored)}-xrechnung.xml`,
    mimeType: 'application/xml',
    bytes: Buffer.from(xml, 'utf8'),
    details: {
      validation,
      fields: { format: 'xrechnung', version: '3.0', customization_id: XRECHNUNG_CUSTOMIZATION_ID },
    },
  };
}

/** Factur-X (EN 16931 profile) of an issued invoice or credit note: the XML validated, then embedded. */
export async function renderFacturX(stored: EInvoiceSource): Promise<Rendering> {
  requireBusinessTerms(stored, 'facturx');
  const xml = ciiFacturX(stored);
  const validation: ValidationReport = await validateEInvoice(xml, 'facturx-cii');
  refuseInvalid(validation);
  const bytes = await renderDocumentPdf(stored, { facturx: { xml } });
  return {
    filename: `${fileStem(stored)}-facturx.pdf`,
    mimeType: 'application/pdf',
    bytes,
    details: {
      validation,
      fields: {
        format: 'facturx',
        version: '1.0',
        profile: 'EN 16931',
        syntax: 'CII',
        conformance_level: 'EN 16931',
        attachment_filename: 'factur-x.xml',
        embedded_xml_base64: Buffer.from(xml, 'utf8').toString('base64'),
      },
    },
  };
}

/** A reminder's PDF, named by its level and invoice (`Zahlungserinnerung-RE-2026-00001.pdf`). */
export async function renderReminder(letter: ReminderLetter): Promise<Rendering> {
  const level = levelName(letter.reminder.level, letter.language);
  const stem = `${level}-${letter.invoice.document.number ?? ''}`
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '');
  const bytes = await renderReminderPdf(letter);
  return { filename: `${stem}.pdf`, mimeType: 'application/pdf', bytes, details: {} };
}
