import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** What a derived key is used for; each purpose gets its own key from the server secret. */
export type SecretPurpose =
  | 'idempotency-fingerprint'
  | 'idempotency-key'
  | 'idempotency-replay'
  | 'otp-code'
  | 'mail-body'
  | 'mail-attachments'
  | 'search-cursor'
  | 'quote'
  | 'approval-params'
  | 'console-csrf';

// Ciphertext layout: version byte, 8-byte key id, 12-byte IV, 16-byte GCM tag, ciphertext.
const FORMAT_VERSION = 1;
const KEY_ID_LENGTH = 8;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const HEADER_LENGTH = 1 + KEY_ID_LENGTH + IV_LENGTH + TAG_LENGTH;

/**
 * HMACs and AES-256-GCM encryption with keys derived (HKDF-SHA-256) per purpose from the 32-byte
 * server secret. Ciphertexts carry a format version and a key id (a hash of the derived key), so a
 * changed SECRET_KEY is recognised instead of producing garbage.
 */
export class SecretBox {
  readonly #keys = new Map<SecretPurpose, Buffer>();

  constructor(private readonly secret: Buffer) {
    if (secret.length !== 32) throw new Error('the server secret must be 32 bytes');
  }

  /** HMAC-SHA-256 of `data` under the purpose's key. */
  mac(purpose: SecretPurpose, data: string | Buffer): Buffer {
    return createHmac('sha256', this.key(purpose)).update(data).digest();
  }

  /** Constant-time comparison of two MACs (false when lengths differ). */
  static equal(a: Buffer, b: Buffer): boolean {
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** AES-256-GCM encryption; the purpose is bound as additional data. */
  encrypt(purpose: SecretPurpose, plaintext: string | Buffer): Buffer {
    const iv = randomBytes(IV_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', this.key(purpose), iv);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([FORMAT_VERSION]), this.keyId(purpose), iv, cipher.getAuthTag(), body]);
  }

  /** Decrypts what {@link encrypt} produced; throws when the key id or the tag does not match. */
  decrypt(purpose: SecretPurpose, blob: Buffer): Buffer {
    if (blob.length < HEADER_LENGTH || blob[0] !== FORMAT_VERSION)
      throw new Error('unknown ciphertext format');
    if (!blob.subarray(1, 1 + KEY_ID_LENGTH).equals(this.keyId(purpose))) {
      throw new Error('ciphertext was made with another SECRET_KEY');
    }
    const iv = blob.subarray(1 + KEY_ID_LENGTH, 1 + KEY_ID_LENGTH + IV_LENGTH);
    const tag = blob.subarray(HEADER_LENGTH - TAG_LENGTH, HEADER_LENGTH);
    const decipher = createDecipheriv('aes-256-gcm', this.key(purpose), iv);
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(blob.subarray(HEADER_LENGTH)), decipher.final()]);
  }

  private key(purpose: SecretPurpose): Buffer {
    let key = this.#keys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.secret, Buffer.alloc(0), `agw:${purpose}:v1`, 32));
      this.#keys.set(purpose, key);
    }
    return key;
  }

  private keyId(purpose: SecretPurpose): Buffer {
    return createHmac('sha256', this.key(purpose)).update('key-id').digest().subarray(0, KEY_ID_LENGTH);
  }
}
