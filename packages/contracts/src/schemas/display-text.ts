import { Type } from '@sinclair/typebox';
import { Nullable } from './primitives.js';

/**
 * Names and titles a person reads (file names, app and organization names, document and calendar
 * titles) must look like what they are. Bidirectional controls reorder what is shown
 * (`invoice\u202Efdp.exe` displays as `invoiceexe.pdf`) and look-alike slashes make a name look like a
 * path. Such text is refused by one schema format, so every contract gets the rule by using
 * {@link DisplayText}; `createValidator()` registers the format (see `./formats.ts`).
 */
export const DISPLAY_TEXT_FORMAT = 'display-text';

/** The violation message of the `display-text` format. */
export const DISPLAY_TEXT_MESSAGE = 'must not contain bidirectional control characters or look-alike slashes';

// Bidi: U+061C ALM, U+200E/U+200F LRM/RLM, U+202A–U+202E embeddings and overrides, U+2066–U+2069
// isolates. Slashes: U+2044 fraction, U+2215 division, U+29F8 big solidus, U+FF0F fullwidth solidus,
// U+2216 set minus, U+29F5 reverse solidus operator, U+29F9 big reverse solidus, U+FE68 small reverse
// solidus, U+FF3C fullwidth reverse solidus.
const DECEPTIVE_CHARACTER =
  /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2044\u2215\u29F8\uFF0F\u2216\u29F5\u29F9\uFE68\uFF3C]/;

/** True when `value` holds no bidirectional control character and no look-alike slash. */
export function isDisplayText(value: string): boolean {
  return !DECEPTIVE_CHARACTER.test(value);
}

/** A user-visible name or title of `minLength..maxLength` characters (format `display-text`). */
export const DisplayText = (minLength: number, maxLength: number, pattern?: string) =>
  Type.String({
    minLength,
    maxLength,
    format: DISPLAY_TEXT_FORMAT,
    ...(pattern === undefined ? {} : { pattern }),
  });

/** A user-visible text of at most `maxLength` characters, or null. */
export const NullableDisplayText = (maxLength: number) =>
  Nullable(Type.String({ maxLength, format: DISPLAY_TEXT_FORMAT }));
