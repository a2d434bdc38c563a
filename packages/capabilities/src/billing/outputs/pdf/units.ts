import { knownUnitCode } from '../xml/facts.js';

/**
 * What a reader calls a UN/ECE Recommendation 20 unit, in German and English. The e-invoice XML
 * keeps the code (it is the standard); the PDF a person reads prints the name.
 */
const UNIT_NAMES: Readonly<Record<'de' | 'en', Readonly<Record<string, string>>>> = {
  de: {
    HUR: 'Std.',
    MIN: 'Min.',
    SEC: 'Sek.',
    DAY: 'Tg.',
    WEE: 'Wo.',
    MON: 'Mon.',
    ANN: 'J.',
    C62: 'Stk.',
    H87: 'Stk.',
    EA: 'Stk.',
    PR: 'Paar',
    SET: 'Set',
    LS: 'psch.',
    P1: '%',
    KGM: 'kg',
    GRM: 'g',
    TNE: 't',
    MTR: 'm',
    KMT: 'km',
    CMT: 'cm',
    MTK: 'm²',
    MTQ: 'm³',
    LTR: 'l',
    KWH: 'kWh',
  },
  en: {
    HUR: 'h',
    MIN: 'min',
    SEC: 's',
    DAY: 'days',
    WEE: 'wk',
    MON: 'mo',
    ANN: 'yr',
    C62: 'pcs',
    H87: 'pcs',
    EA: 'pcs',
    PR: 'pair',
    SET: 'set',
    LS: 'lot',
    P1: '%',
    KGM: 'kg',
    GRM: 'g',
    TNE: 't',
    MTR: 'm',
    KMT: 'km',
    CMT: 'cm',
    MTK: 'm²',
    MTQ: 'm³',
    LTR: 'l',
    KWH: 'kWh',
  },
};

/**
 * A line's unit as the PDF prints it: the name of its Rec 20 code (`HUR` or `h` → `Std.` / `h`), or
 * the unit as entered when it names no code this table knows (an unknown code prints as the code).
 */
export function unitName(unit: string | null, language: 'de' | 'en'): string | null {
  if (unit === null || unit.trim() === '') return null;
  const code = knownUnitCode(unit);
  return (code === null ? undefined : UNIT_NAMES[language][code]) ?? unit.trim();
}
