import {
  DISPLAY_TEXT_FORMAT,
  DISPLAY_TEXT_MESSAGE,
  isDisplayText,
  isMultilineText,
  MULTILINE_TEXT_FORMAT,
  MULTILINE_TEXT_MESSAGE,
} from './display-text.js';
import { DECIMAL_6_FORMAT, DECIMAL_6_MESSAGE, hasAtMostSixDecimals } from './numbers.js';

/** What `addContractFormats` needs of an Ajv instance (any Ajv 8 class). */
export interface FormatRegistry {
  addFormat(
    name: string,
    format:
      | { type: 'string'; validate: (value: string) => boolean }
      | { type: 'number'; validate: (value: number) => boolean },
  ): unknown;
}

/**
 * Registers the contracts' own formats (`display-text`, `multiline-text`, `decimal-6`) on an Ajv instance. Ajv in strict
 * mode refuses a schema with an unknown format, so every validator of these schemas calls this.
 * Validators that treat `format` as an annotation (the 2020-12 default) simply skip the rule.
 */
export function addContractFormats<A extends FormatRegistry>(ajv: A): A {
  ajv.addFormat(DISPLAY_TEXT_FORMAT, { type: 'string', validate: isDisplayText });
  ajv.addFormat(MULTILINE_TEXT_FORMAT, { type: 'string', validate: isMultilineText });
  ajv.addFormat(DECIMAL_6_FORMAT, { type: 'number', validate: hasAtMostSixDecimals });
  return ajv;
}

const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  [DISPLAY_TEXT_FORMAT]: DISPLAY_TEXT_MESSAGE,
  [MULTILINE_TEXT_FORMAT]: MULTILINE_TEXT_MESSAGE,
  [DECIMAL_6_FORMAT]: DECIMAL_6_MESSAGE,
};

/** The clear message of a contracts format (Ajv's own says only `must match format "…"`). */
export function contractFormatMessage(format: unknown): string | undefined {
  return typeof format === 'string' ? FORMAT_MESSAGES[format] : undefined;
}
