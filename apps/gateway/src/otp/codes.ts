import { randomInt } from 'node:crypto';
import { SecretBox } from '../secrets/secret-box.js';

/** The two kinds of one-time code; a code of one never verifies the other. */
export type OtpPurpose = 'owner' | 'agent';

/** Code length: 8 digits, because both TTLs exceed 10 minutes (security rules 3.2.1). */
export const OTP_DIGITS = 8;

/** A uniformly random 8-digit code from the CSPRNG (leading zeros kept). */
export function generateOtp(): string {
  return String(randomInt(0, 10 ** OTP_DIGITS)).padStart(OTP_DIGITS, '0');
}

/** HMAC-SHA-256(server secret, purpose ‖ installation id ‖ code), hex: all a code row stores. */
export function otpMac(box: SecretBox, purpose: OtpPurpose, installationId: string, code: string): string {
  return box.mac('otp-code', `${purpose}\u0000${installationId}\u0000${code}`).toString('hex');
}

/** Constant-time check of a submitted code against a stored MAC. */
export function otpMatches(
  box: SecretBox,
  purpose: OtpPurpose,
  installationId: string,
  submitted: string,
  storedMac: string,
): boolean {
  const presented = Buffer.from(otpMac(box, purpose, installationId, submitted), 'hex');
  return SecretBox.equal(presented, Buffer.from(storedMac, 'hex'));
}
