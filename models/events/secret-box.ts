/**
 * Secrets we must read back (webhook endpoints' signing secrets: the sender signs with them), so
 * stored encrypted, never hashed: AES-256-GCM (node:crypto) with a random 12-byte IV, under a key
 * derived with HKDF-SHA256 from the configuration's `web.secret` (WEB_SECRET, already required in
 * production) and an `info` naming the use, so no new variable and no key shared with another use.
 * A sealed value is `v1.<iv>.<tag>.<ciphertext>`, each part base64url; the version lets a later key
 * or cipher coexist. A context (the endpoint's id) is bound as additional authenticated data, so a
 * ciphertext copied to another endpoint does not open.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  /** Encrypts `plain`, bound to `context`. */
  seal(plain: string, context: string): string;
  /** Decrypts what `seal` made with the same key and context; throws on anything else. */
  open(sealed: string, context: string): string;
}

/** The info of the webhook endpoints' key. */
export const WEBHOOK_SECRETS_INFO = 'webhook-endpoint-secrets';

export function createSecretBox(rootSecret: string, info: string): SecretBox {
  if (!rootSecret || rootSecret.length < 16) throw new Error('createSecretBox: the root secret must be at least 16 characters');
  if (!info) throw new Error('createSecretBox: info is required');
  const key = Buffer.from(hkdfSync('sha256', rootSecret, Buffer.alloc(0), info, 32));

  return {
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('secret-box: not a sealed value of this version');
      const iv = Buffer.from(parts[1]!, 'base64url');
      const tag = Buffer.from(parts[2]!, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('secret-box: malformed sealed value');
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]).toString('utf8');
      } catch (err) {
        throw new Error('secret-box: the sealed value does not open (tampered, or another key or context)', { cause: err });
      }
    },
  };
}
