import { Type } from '@sinclair/typebox';

/**
 * The ISO 4217 currencies a document can be written in (List One as published by SIX in 2025), upper
 * case as the standard writes them and EN 16931 (BT-5) requires. Left out are the codes that name no
 * currency: XXX (no currency), XTS (testing), the precious metals (XAU, XAG, XPD, XPT), the bond-market
 * units (XBA-XBD), XDR, XSU and XUA; and withdrawn codes (HRK, SLL, ZWL, CUC), which nobody is paid in
 * any more.
 */
export const ISO_4217_CURRENCIES: readonly string[] = (
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP ' +
  'BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR ' +
  'FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES ' +
  'KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR ' +
  'MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF ' +
  'SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS ' +
  'UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG'
).split(' ');

const KNOWN: ReadonlySet<string> = new Set(ISO_4217_CURRENCIES);

/** True when `code` is one of {@link ISO_4217_CURRENCIES} (case matters: `eur` is not a code). */
export function isCurrencyCode(code: string): boolean {
  return KNOWN.has(code);
}

/** An ISO 4217 currency code (`EUR`, `JPY`, `BHD`): one of {@link ISO_4217_CURRENCIES}, upper case. */
export const Currency = () =>
  Type.Unsafe<string>({
    type: 'string',
    minLength: 3,
    maxLength: 3,
    enum: [...ISO_4217_CURRENCIES],
    description: 'An ISO 4217 alphabetic currency code, upper case (EUR, USD, GBP, CHF, JPY).',
    examples: ['EUR'],
  });
