import { Type } from '@sinclair/typebox';
import { Nullable } from './primitives.js';

/**
 * Names and titles a person reads (file names, app and organization names, document and calendar
 * titles) must look like what they are. Bidirectional controls reorder what is shown
 * (`invoice\u202Efdp.exe` displays as `invoiceexe.pdf`) and look-alike slashes make a name look like a
 * path. Control characters (CR/LF included) break the one-line formats a name is written into (a mail
 * subject, an `.ics` property, an e-invoice the XSD then refuses), and a lone UTF-16 surrogate cannot be
 * stored as UTF-8 at all. Such text is refused by one schema format, so every contract gets the rule by
 * using {@link DisplayText}; `createValidator()` registers the format (see `./formats.ts`).
 */
export const DISPLAY_TEXT_FORMAT = 'display-text';

/** The violation message of the `display-text` format. */
export const DISPLAY_TEXT_MESSAGE =
  'must not contain control characters, bidirectional control characters, look-alike slashes or lone surrogates';

/**
 * Longer text a person writes (a note, a line description, a footer): line breaks and tabs are kept,
 * every other control character and lone surrogates are refused, for the same reasons as display text.
 * Bidirectional controls stay allowed here: right-to-left prose may need them.
 */
export const MULTILINE_TEXT_FORMAT = 'multiline-text';

/** The violation message of the `multiline-text` format. */
export const MULTILINE_TEXT_MESSAGE =
  'must not contain control characters other than tab and line breaks, nor lone surrogates';

// Bidi: U+061C ALM, U+200E/U+200F LRM/RLM, U+202A–U+202E embeddings and overrides, U+2066–U+2069
// isolates. Slashes: U+2044 fraction, U+2215 division, U+29F8 big solidus, U+FF0F fullwidth solidus,
// U+2216 set minus, U+29F5 reverse solidus operator, U+29F9 big reverse solidus, U+FE68 small reverse
// solidus, U+FF3C fullwidth reverse solidus.
const DECEPTIVE_CHARACTER =
  /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2044\u2215\u29F8\uFF0F\u2216\u29F5\u29F9\uFE68\uFF3C]/;

// C0 controls, DEL and C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
const CONTROL_CHARACTER = /[\u0000-\u001F\u007F-\u009F]/;
// The same without tab (U+0009), line feed (U+000A) and carriage return (U+000D).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
const CONTROL_CHARACTER_NOT_LINE_BREAK = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `value` holds no control, bidirectional control or look-alike slash character and no lone surrogate. */
export function isDisplayText(value: string): boolean {
  return !DECEPTIVE_CHARACTER.test(value) && !CONTROL_CHARACTER.test(value) && !LONE_SURROGATE.test(value);
}

/** True when `value` holds no control character other than tab, CR and LF, and no lone surrogate. */
export function isMultilineText(value: string): boolean {
  return !CONTROL_CHARACTER_NOT_LINE_BREAK.test(value) && !LONE_SURROGATE.test(value);
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

/** A text of at most `maxLength` characters that may span lines (format `multiline-text`). */
export const MultilineText = (maxLength: number, minLength = 0) =>
  Type.String({ minLength, maxLength, format: MULTILINE_TEXT_FORMAT });

/** A multi-line text of at most `maxLength` characters, or null. */
export const NullableMultilineText = (maxLength: number) =>
  Nullable(Type.String({ maxLength, format: MULTILINE_TEXT_FORMAT }));
