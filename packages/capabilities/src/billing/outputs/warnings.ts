import { MAX_EXPORT_WARNINGS } from '../bounds.js';
import type { ValidationReport } from './rendering.js';

/**
 * The `warnings` of an e-invoice answer: at most the contract's MAX_EXPORT_WARNINGS, the last of them
 * saying how many more the validation report holds (a warning per line of a 250-line document would
 * otherwise make the list as long as the document).
 */
export function listedWarnings(validation: ValidationReport | undefined): string[] {
  const warnings = validation?.warnings ?? [];
  if (warnings.length <= MAX_EXPORT_WARNINGS) return [...warnings];
  const listed = warnings.slice(0, MAX_EXPORT_WARNINGS - 1);
  return [...listed, `… and ${warnings.length - listed.length} more warnings (see validation.warnings).`];
}
