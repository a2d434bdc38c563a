import type PDFDocument from 'pdfkit';

/** A4 in points, the margins, and the band the footer keeps free at the bottom of every page. */
export const PAGE = { width: 595.28, height: 841.89, margin: 50, footer: 60 } as const;
export const CONTENT_WIDTH = PAGE.width - 2 * PAGE.margin;
/** The lowest y a block may end at on any page (above the footer). */
export const CONTENT_BOTTOM = PAGE.height - PAGE.margin - PAGE.footer;

export const FONT = { regular: 'Regular', bold: 'Bold' } as const;
export const COLOR = { text: '#1f2328', muted: '#57606a', rule: '#d0d7de', draft: '#d0d7de' } as const;

export type Pdf = InstanceType<typeof PDFDocument>;

/**
 * Keeps a block of `height` points together: starts a new page when it would run into the footer.
 * Answers whether a page was added (the caller repeats what heads each page, e.g. the table header).
 */
export function keepTogether(pdf: Pdf, height: number): boolean {
  if (pdf.y + height <= CONTENT_BOTTOM) return false;
  pdf.addPage();
  pdf.y = PAGE.margin;
  return true;
}

/** Height of `text` in the current font at `width` (what pdfkit will wrap it to). */
export function heightOf(pdf: Pdf, text: string, width: number, font: string, size: number): number {
  pdf.font(font).fontSize(size);
  return pdf.heightOfString(text, { width });
}
