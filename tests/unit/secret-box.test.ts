/** The sealed storage of webhook endpoints' secrets: AES-256-GCM under a key derived from WEB_SECRET. */
import { createSecretBox, WEBHOOK_SECRETS_INFO } from '../../models/events/secret-box';
import { newWebhookSecret } from '../../models/events/webhook-signing';

const ROOT = 'a-web-secret-of-at-least-32-characters-0123';
const box = createSecretBox(ROOT, WEBHOOK_SECRETS_INFO);

describe('secret-box', () => {
  it('opens what it sealed, and seals the same secret differently each time', () => {
    const secret = newWebhookSecret();
    const sealed = box.seal(secret, 'we_endpoint');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('whsec_');
    expect(box.open(sealed, 'we_endpoint')).toBe(secret);
    expect(box.seal(secret, 'we_endpoint')).not.toBe(sealed);
  });

  it('refuses a tampered value', () => {
    const sealed = box.seal(newWebhookSecret(), 'we_endpoint');
    const [v, iv, tag, ct] = sealed.split('.') as [string, string, string, string];
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64url');
      bytes[0] = bytes[0]! ^ 1;
      return bytes.toString('base64url');
    };
    expect(() => box.open([v, iv, tag, flip(ct)].join('.'), 'we_endpoint')).toThrow('does not open');
    expect(() => box.open([v, iv, flip(tag), ct].join('.'), 'we_endpoint')).toThrow('does not open');
    expect(() => box.open([v, flip(iv), tag, ct].join('.'), 'we_endpoint')).toThrow('does not open');
    expect(() => box.open(['v2', iv, tag, ct].join('.'), 'we_endpoint')).toThrow('not a sealed value');
    expect(() => box.open('whsec_plain', 'we_endpoint')).toThrow('not a sealed value');
  });

  it('refuses another key, another use of the same root, or another endpoint', () => {
    const sealed = box.seal(newWebhookSecret(), 'we_endpoint');
    expect(() => createSecretBox(`${ROOT}-rotated`, WEBHOOK_SECRETS_INFO).open(sealed, 'we_endpoint')).toThrow('does not open');
    expect(() => createSecretBox(ROOT, 'another-use').open(sealed, 'we_endpoint')).toThrow('does not open');
    expect(() => box.open(sealed, 'we_another')).toThrow('does not open');
  });

  it('wants a root secret and an info', () => {
    expect(() => createSecretBox('short', WEBHOOK_SECRETS_INFO)).toThrow('at least 16');
    expect(() => createSecretBox(ROOT, '')).toThrow('info is required');
  });
});
