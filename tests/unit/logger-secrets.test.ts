/** Webhook signing secrets (whsec_…) never reach a log line: their fields are redacted, and a message carrying one is scrubbed. */
import { Writable } from 'node:stream';
import { createLogger, scrubSecrets } from '../../models/infra/logger';
import { newWebhookSecret } from '../../models/events/webhook-signing';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ name: 'test', level: 'info', destination }), lines };
}

describe('webhook secrets in logs', () => {
  it('redacts the fields that hold them, in clear or sealed', () => {
    const { logger, lines } = capture();
    const secret = newWebhookSecret();
    logger.info({ endpoint: { secret, secrets: [{ ciphertext: 'v1.aaa.bbb.ccc' }], signingSecrets: [secret] }, answer: { ciphertext: 'v1.x.y.z' } }, 'endpoint made');
    const line = lines.join('');
    expect(line).not.toContain(secret);
    expect(line).not.toContain('v1.aaa');
    expect(line).not.toContain('v1.x.y.z');
    expect(JSON.parse(line).endpoint).toEqual({ secret: '[redacted]', secrets: '[redacted]', signingSecrets: '[redacted]' });
  });

  it('scrubs a whsec_ value out of a message and its arguments', () => {
    const { logger, lines } = capture();
    const secret = newWebhookSecret();
    logger.warn(`could not verify with ${secret}`);
    logger.warn({ at: 'x' }, 'tried %s and %s', secret, 'another');
    const text = lines.join('');
    expect(text).not.toContain(secret);
    expect(text).toContain('whsec_[redacted]');
    expect(text).toContain('another');
    expect(scrubSecrets(`a ${secret} b whsec_abc-_d`)).toBe('a whsec_[redacted] b whsec_[redacted]');
    expect(scrubSecrets('nothing here')).toBe('nothing here');
  });
});
