/**
 * Reports about readers' mail (issue 40): a feedback report (ARF, RFC 5965) read by complaintOf,
 * and what the reader-mail feedback does with a bounce or a complaint (operations/news/
 * reader-mail-feedback.ts) over fakes: only our own mail counts, a delay or `not-spam` changes
 * nothing, a complaint switches the reader's mail off.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import PostalMime from 'postal-mime';
import { bounceOf, complaintOf } from '../../models/support/mail-in.rules';
import type { ReaderMailDoc } from '../../models/news/reader-mail.repo';
import { readerMailBounced, readerMailComplained, type ReaderMailFeedbackDeps } from '../../operations/news/reader-mail-feedback';

const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/mail', name), 'latin1').replace(/\r?\n/g, '\r\n');

describe('complaintOf', () => {
  it('reads the feedback type, the complaining recipient and the Message-ID of the mail complained about', async () => {
    const email = await PostalMime.parse(fixture('arf-complaint.eml'));
    expect(complaintOf(email)).toEqual({ feedbackType: 'abuse', recipient: 'reader.complains@example.com', originalMessageId: '<r.alert-fixture@localhost>' });
    expect(bounceOf(email)).toBeNull();
  });

  it('is null for a bounce, a plain mail and a report whose type it does not say', async () => {
    expect(complaintOf(await PostalMime.parse(fixture('dsn-bounce.eml')))).toBeNull();
    expect(complaintOf(await PostalMime.parse(fixture('gmail-reply.eml')))).toBeNull();
    expect(complaintOf(await PostalMime.parse(fixture('arf-complaint.eml').replace('Feedback-Type: abuse\r\n', '')))).toBeNull();
  });
});

function fakes(mail: ReaderMailDoc | null) {
  const calls: string[] = [];
  const deps: ReaderMailFeedbackDeps = {
    readerMail: {
      byMessageId: async (id) => (mail && id === mail.messageId ? mail : null),
      markBounced: async (id) => void calls.push(`bounced ${id}`),
      suppress: async (address, reason) => void calls.push(`suppress ${address} ${reason}`),
    },
    preferences: { update: async (userId, update) => void calls.push(`update ${userId} ${JSON.stringify(update)}`) as never },
    now: () => new Date('2031-03-04T10:00:00Z'),
  };
  return { deps, calls };
}

const MAIL: ReaderMailDoc = { _id: 'alert:a1:u1', kind: 'alert', userId: 'u1', to: 'Reader@Example.com', messageId: '<r.1@localhost>', state: 'sent', attempts: 1, response: '250', createdAt: new Date(), updatedAt: new Date(), expiresAt: new Date() };

describe('the reader-mail feedback', () => {
  it('suppresses the address of a hard bounce and marks the mail bounced; a delay or a mail not ours changes nothing', async () => {
    const hard = fakes(MAIL);
    expect(await readerMailBounced(hard.deps, '<r.1@localhost>', [{ address: 'reader@example.com', status: '5.1.1', diagnostic: 'unknown', hard: true }])).toEqual({ mailId: MAIL._id, suppressed: ['reader@example.com'] });
    expect(hard.calls).toEqual(['suppress Reader@Example.com bounce', `bounced ${MAIL._id}`]);
    const soft = fakes(MAIL);
    expect(await readerMailBounced(soft.deps, '<r.1@localhost>', [{ address: 'reader@example.com', status: '4.2.2', diagnostic: 'full', hard: false }])).toEqual({ mailId: MAIL._id, suppressed: [] });
    expect(soft.calls).toEqual([]);
    const other = fakes(MAIL);
    expect(await readerMailBounced(other.deps, '<forged@localhost>', [{ address: 'reader@example.com', status: '5.1.1', diagnostic: '', hard: true }])).toBeNull();
    expect(other.calls).toEqual([]);
  });

  it("suppresses a complaint's address and switches the reader's e-mail alerts and digest off; not-spam does nothing", async () => {
    const abuse = fakes(MAIL);
    expect(await readerMailComplained(abuse.deps, '<r.1@localhost>', 'abuse')).toEqual({ mailId: MAIL._id, suppressed: ['reader@example.com'] });
    expect(abuse.calls).toEqual(['suppress Reader@Example.com complaint', 'update u1 {"$set":{"notificationSettings.email":false,"notificationSettings.digest":false}}']);
    const notSpam = fakes(MAIL);
    expect(await readerMailComplained(notSpam.deps, '<r.1@localhost>', 'not-spam')).toEqual({ mailId: MAIL._id, suppressed: [] });
    expect(notSpam.calls).toEqual([]);
    expect(await readerMailComplained(fakes(null).deps, '<r.1@localhost>', 'abuse')).toBeNull();
  });
});
