import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type PDFKitDocument from 'pdfkit';
import type { StoredBillingDocument } from '../../records.js';
import { packageAssetDir } from '../assets.js';
import { drawHeader, drawLines, drawTitle } from './blocks.js';
import { embedFacturX } from './facturx.js';
import { type Locale, localeOf } from './labels.js';
import { COLOR, CONTENT_WIDTH, FONT, PAGE, type Pdf } from './page.js';
import { drawPaymentAndNotes, drawTotals } from './summary.js';

export { FACTURX_FILENAME } from './facturx.js';

let pdfkit: Promise<typeof PDFKitDocument> | undefined;

/**
 * pdfkit, loaded once by the first PDF (as SaxonJS by the first e-invoice check): a process that
 * renders none does not pay its import at start.
 */
function loadPdfKit(): Promise<typeof PDFKitDocument> {
  pdfkit ??= import('pdfkit').then((module) => module.default);
  return pdfkit;
}

let fonts: { regular: Buffer; bold: Buffer } | undefined;

/** Noto Sans, read once: embedded (subset) in every PDF, so umlauts, ß and € look the same everywhere. */
function bundledFonts() {
  if (fonts === undefined) {
    const directory = packageAssetDir('fonts');
    fonts = {
      regular: readFileSync(join(directory, 'NotoSans-Regular.ttf')),
      bold: readFileSync(join(directory, 'NotoSans-Bold.ttf')),
    };
  }
  return fonts;
}

/** The legal footer lines and "Page n of m" on every page, and the DRAFT mark across a draft's pages. */
export function drawPageFurniture(
  pdf: Pdf,
  stored: Pick<StoredBillingDocument, 'document'>,
  locale: Locale,
): void {
  const { document } = stored;
  const footer = [...(document.issuer.legal_footer_lines ?? []), document.issuer.footer_text]
    .filter((line): line is string => Boolean(line))
    .join('\n');
  const range = pdf.bufferedPageRange();
  for (let index = range.start; index < range.start + range.count; index += 1) {
    pdf.switchToPage(index);
    // Writing into the bottom margin must not start a new page.
    const margin = pdf.page.margins.bottom;
    pdf.page.margins.bottom = 0;
    const top = PAGE.height - PAGE.margin - PAGE.footer + 18;
    pdf
      .moveTo(PAGE.margin, top - 6)
      .lineTo(PAGE.margin + CONTENT_WIDTH, top - 6)
      .strokeColor(COLOR.rule)
      .lineWidth(0.5)
      .stroke();
    pdf.font(FONT.regular).fontSize(7).fillColor(COLOR.muted);
    pdf.text(footer, PAGE.margin, top, { width: CONTENT_WIDTH - 80, height: PAGE.footer - 10 });
    pdf.text(locale.labels.page(index + 1, range.count), PAGE.margin + CONTENT_WIDTH - 80, top, {
      width: 80,
      align: 'right',
    });
    if (document.status === 'draft') {
      pdf.save();
      pdf.rotate(-35, { origin: [PAGE.width / 2, PAGE.height / 2] });
      pdf.font(FONT.bold).fontSize(110).fillColor(COLOR.draft).fillOpacity(0.45);
      pdf.text(locale.labels.draft, 0, PAGE.height / 2 - 70, {
        width: PAGE.width,
        align: 'center',
        lineBreak: false,
      });
      pdf.restore();
    }
    pdf.page.margins.bottom = margin;
  }
}

/** What a new PDF states about itself: language, title, author, and the date it is fixed to. */
export interface PdfInfo {
  readonly lang: string;
  readonly title: string;
  readonly author: string;
  /** Creation and modification date: the document's, never the clock's, so the bytes repeat. */
  readonly date: Date;
}

/**
 * A new A4 PDF/A-3b with the bundled fonts registered, and the promise of its bytes once `pdf.end()` is
 * called: what every billing PDF (documents, reminders) starts from.
 */
export async function openPdf(info: PdfInfo): Promise<{ pdf: Pdf; done: Promise<Buffer> }> {
  const PDFDocument = await loadPdfKit();
  const { regular, bold } = bundledFonts();
  const pdf: Pdf = new PDFDocument({
    size: 'A4',
    margins: { top: PAGE.margin, bottom: PAGE.margin, left: PAGE.margin, right: PAGE.margin },
    pdfVersion: '1.7',
    subset: 'PDF/A-3b',
    lang: info.lang,
    bufferPages: true,
    font: regular as unknown as string,
    info: {
      Title: info.title,
      Author: info.author,
      Creator: 'Agent Gateway',
      Producer: 'Agent Gateway (pdfkit)',
      CreationDate: info.date,
      ModDate: info.date,
    },
  });
  pdf.registerFont(FONT.regular, regular);
  pdf.registerFont(FONT.bold, bold);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  return { pdf, done };
}

/** Options of {@link renderDocumentPdf}. */
export interface RenderPdfOptions {
  /** Embed this CII XML as Factur-X (profile EN 16931). */
  readonly facturx?: { readonly xml: string };
}

/**
 * A PDF/A-3b of any billing document from its frozen snapshot: issuer, recipient, facts, lines (a
 * line never split across pages, the table header repeated), totals with the VAT breakdown (kept
 * whole), payment details, terms, notes; footer and page numbers on every page; a draft carries a
 * DRAFT mark and no number. The same document renders the same bytes every time (dates and the file
 * ID come from the document, not the clock), which the archive relies on.
 */
export async function renderDocumentPdf(
  stored: StoredBillingDocument,
  options: RenderPdfOptions = {},
): Promise<Buffer> {
  const { document } = stored;
  const locale = localeOf(document.issuer.locale);
  const date = new Date(document.issued_at ?? document.created_at);
  const kind = locale.labels[document.document_type];
  const { pdf, done } = await openPdf({
    lang: locale.tag,
    title: document.number ? `${kind} ${document.number}` : kind,
    author: document.issuer.issuer_name ?? '',
    date,
  });
  drawHeader(pdf, stored, locale);
  drawTitle(pdf, stored, locale);
  drawLines(pdf, stored, locale);
  drawTotals(pdf, stored, locale);
  drawPaymentAndNotes(pdf, stored, locale);
  drawPageFurniture(pdf, stored, locale);
  if (options.facturx) embedFacturX(pdf, options.facturx.xml, date);
  pdf.end();
  return done;
}
