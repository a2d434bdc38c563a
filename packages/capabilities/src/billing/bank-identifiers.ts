import {
  getCountrySpecifications,
  ValidationErrorsBIC,
  ValidationErrorsIBAN,
  validateBIC,
  validateIBAN,
} from 'ibantools';
import { invalid } from './common.js';

// IBAN and BIC rules come from ibantools (docs/libraries.md): the registry's length and account format
// per country and the national account check digits where a country has them, beyond ISO 13616's mod 97.

const compact = (value: string) => value.replace(/\s+/g, '').toUpperCase();

/** Why an IBAN is refused, from ibantools' first error (the checksum error it adds to a bad format is dropped). */
function ibanProblem(iban: string, errors: readonly ValidationErrorsIBAN[]): string {
  const country = iban.slice(0, 2);
  if (errors.includes(ValidationErrorsIBAN.NoIBANCountry))
    return `'${country}' is not a country that has IBANs`;
  if (errors.includes(ValidationErrorsIBAN.WrongBBANLength)) {
    const expected = getCountrySpecifications()[country]?.chars;
    return `has ${iban.length} characters; an IBAN of ${country} has ${expected}`;
  }
  if (errors.includes(ValidationErrorsIBAN.WrongBBANFormat))
    return `the account part is not in ${country}'s format`;
  if (errors.includes(ValidationErrorsIBAN.WrongAccountBankBranchChecksum))
    return `the account's national check digits are wrong`;
  return 'the check digits are wrong (mod 97)';
}

/** The IBAN in electronic form (no spaces, upper case), or a 400 at `pointer` saying what is wrong. */
export function checkedIban(value: string, pointer: string): string {
  const iban = compact(value);
  const { valid, errorCodes } = validateIBAN(iban);
  if (!valid) invalid(pointer, `is not a valid IBAN: ${ibanProblem(iban, errorCodes)}`);
  return iban;
}

/** The BIC (ISO 9362: bank, country, location, optional branch) upper case, null when none is given. */
export function checkedBic(value: string | null, pointer: string): string | null {
  if (value === null || value.trim() === '') return null;
  const bic = compact(value);
  const { valid, errorCodes } = validateBIC(bic);
  if (!valid) {
    const problem = errorCodes.includes(ValidationErrorsBIC.NoBICCountry)
      ? `'${bic.slice(4, 6)}' is not a country code`
      : 'it is 8 or 11 letters and digits: bank (4 letters), country (2), location (2), branch (3, optional)';
    invalid(pointer, `is not a valid BIC: ${problem}`);
  }
  return bic;
}
