import { type TSchema, Type } from '@sinclair/typebox';
import { Described } from './primitives.js';

/**
 * The code lists billing fields use, each described once with its standard and common values, so every
 * field that takes a code names the same standard in the same words.
 */

/** An ISO 3166-1 alpha-2 country code, upper case. */
export const CountryCode = () =>
  Type.String({
    pattern: '^[A-Z]{2}$',
    description: 'An ISO 3166-1 alpha-2 country code, upper case (DE, AT, CH, FR, NL, GB, US).',
    examples: ['DE'],
  });

/**
 * A line's unit. The handlers keep the text as given; the e-invoices (XRechnung, Factur-X) write it as a
 * UN/ECE Recommendation 20 code: a code as is, a known word mapped, anything else C62.
 */
export function UnitOfMeasure<T extends TSchema>(schema: T): T {
  return Described(
    schema,
    'Unit of the quantity, best a UN/ECE Recommendation 20 code: HUR = hour, MIN = minute, DAY = day, WEE = week, ' +
      'MON = month, ANN = year, C62 = one (unit), H87 = piece, LS = lump sum, KGM = kilogram, MTR = metre, ' +
      'MTK = square metre, LTR = litre, KWH = kilowatt hour. Common words (h, Std., Tag, Stk., kg, pauschal) ' +
      'are mapped to their code in e-invoices; any other text, or none, counts as C62.',
    ['HUR', 'C62', 'DAY', 'LS'],
  );
}

/**
 * How a document is taxed, with the VAT category (UNTDID 5305, EN 16931 BT-151) each treatment gives
 * its lines in the e-invoice.
 */
export const TAX_TREATMENT_DESCRIPTION =
  'How the document is taxed; each value sets the VAT category (UNTDID 5305) of its lines: ' +
  'domestic = S (standard rate; Z at 0 %), zero_rated = Z, exempt = E, reverse_charge = AE (the buyer owes the VAT), ' +
  'intra_community_supply = K (goods to an EU business), export = G (outside the EU), ' +
  'not_subject_to_vat = O (outside the scope of VAT). L and M (Canary Islands, Ceuta and Melilla) are not offered.';

/**
 * The electronic address scheme (EAS code list of the CEF, EN 16931 BT-49-1) of the buyer's e-invoice
 * endpoint.
 */
export const E_INVOICE_SCHEME_DESCRIPTION =
  "Scheme of the buyer's e-invoice endpoint id (EAS code list, EN 16931 BT-49-1): EM = email address, " +
  '0204 = German Leitweg-ID (public buyers), 0088 = GS1 Global Location Number (GLN), ' +
  '9915 = Austrian government organization id (AT:GOV). Null when the document states no endpoint scheme.';
