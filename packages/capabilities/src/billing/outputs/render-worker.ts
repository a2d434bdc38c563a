import { CapabilityError, type CapabilityViolation } from '../../define.js';
import type { ReminderLetter } from './reminder-letter.js';
import { renderFacturX, renderPdf, renderReminder, renderXRechnung } from './render.js';
import type { Rendering } from './rendering.js';
import type { EInvoiceSource } from './xml/index.js';

/**
 * The entry of the render pool's worker threads (render-pool.ts): one rendering per job, with the same
 * functions the tests call in process. pdfkit, SaxonJS and the xmllint worker load and warm up here, once
 * per thread, on the first job that needs them.
 */

/** What the main thread asks for: an output of a document, or a reminder's letter. */
export type RenderJob =
  | { readonly format: 'pdf' | 'xrechnung' | 'facturx'; readonly stored: EInvoiceSource }
  | { readonly format: 'reminder'; readonly letter: ReminderLetter };

/**
 * What comes back. A CapabilityError (a document the official rules refuse, a missing business term)
 * crosses as its fields and is thrown again on the main thread: a structured clone keeps an error's
 * message but not its code and violations.
 */
export type RenderOutcome =
  | { readonly rendering: Rendering }
  | {
      readonly refused: {
        readonly code: CapabilityError['code'];
        readonly message: string;
        readonly violations: readonly CapabilityViolation[];
      };
    };

const RENDERERS = { pdf: renderPdf, xrechnung: renderXRechnung, facturx: renderFacturX } as const;

export default async function render(job: RenderJob): Promise<RenderOutcome> {
  try {
    if (job.format === 'reminder') return { rendering: await renderReminder(job.letter) };
    return { rendering: await RENDERERS[job.format](job.stored) };
  } catch (error) {
    if (!(error instanceof CapabilityError)) throw error;
    return { refused: { code: error.code, message: error.message, violations: error.violations } };
  }
}
