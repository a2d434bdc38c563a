import { readFile } from 'node:fs/promises';
import { detectEInvoiceKind, EINVOICE_KINDS, type EInvoiceKind, validateEInvoice } from '@agw/capabilities';
import type { CommandContext } from '../context.js';
import { EXIT, ExitError } from '../io.js';
import { colorsFor, writeJson } from '../output.js';

/** Flags of `agw einvoice validate`. */
export interface EInvoiceValidateFlags {
  readonly as?: EInvoiceKind | undefined;
  readonly json?: boolean | undefined;
}

export { EINVOICE_KINDS };

/** Exit code of a file that breaks an official rule. */
export const EXIT_EINVOICE_INVALID = 8;

/**
 * `agw einvoice validate <file>`: the same in-process checks billing.document.xrechnung and .facturx
 * run before they answer (XSD, then the official EN 16931 and XRechnung / Factur-X Schematron), on any
 * XML file. Exits 0 when valid, 8 when a rule is broken (the findings are printed first), 2 when
 * the file cannot be read or is not an e-invoice it knows.
 */
export async function einvoiceValidate(
  file: string,
  flags: EInvoiceValidateFlags,
  context: CommandContext,
): Promise<void> {
  const xml = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ExitError(EXIT.usage, `cannot read ${file}: ${error.code ?? error.message}`);
  });
  const kind = flags.as ?? detectEInvoiceKind(xml);
  if (kind === undefined) {
    throw new ExitError(
      EXIT.usage,
      `${file} is neither UBL (Invoice, CreditNote) nor CII (CrossIndustryInvoice); name what to check it as with --as (${EINVOICE_KINDS.join(', ')})`,
    );
  }
  const report = await validateEInvoice(xml, kind);
  if (flags.json) {
    writeJson(context.io, { file, kind, ...report });
  } else {
    const colors = colorsFor(context.io, context.env);
    const lines = [`${file}: ${kind}, ${report.valid ? colors.green('valid') : colors.red('invalid')}`];
    for (const set of report.rule_sets) {
      lines.push(`  ${set.name} ${set.version}: ${set.fatal} error(s), ${set.warnings} warning(s)`);
    }
    for (const error of report.errors) lines.push(`  ${colors.red('error')} ${error.rule}: ${error.message}`);
    for (const warning of report.warnings) lines.push(`  ${colors.yellow('warning')} ${warning}`);
    context.io.stdout(`${lines.join('\n')}\n`);
  }
  if (!report.valid) {
    const rules = [...new Set(report.errors.map((error) => error.rule))];
    throw new ExitError(EXIT_EINVOICE_INVALID, `${file} breaks ${rules.join(', ')}`);
  }
}
