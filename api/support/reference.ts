/** The Support Ticket API's reference overview and tag descriptions (issue 37). */
import { firstRequestBlocks, overview } from '../shared/reference';

export const supportDescription = overview({
  summary:
    "The newsletter's support desk: readers open tickets and write to them; agents answer, tag, use quick replies and AI-drafted replies, act on many tickets at once, and read the desk's reports. Texts and field names are in Portuguese, as the desk works.",
  credential: [
    'Every operation takes a bearer token (`Authorization: Bearer …`), a JWT from the identity provider this deployment trusts:',
    '- a **reader** (any signed-in user) opens tickets and reads and answers their own;',
    '- an **agent** holds the permission `support.agent`, and sees and works every ticket, the tags, quick replies, bulk operations and reports.',
  ].join('\n'),
  firstRequest: [
    'A reader opens a ticket (the `servers` entry above is the address to use as `SUPPORT_URL`):',
    firstRequestBlocks(
      [
        'curl -sS -X POST "$SUPPORT_URL/support" -H "Authorization: Bearer $API_TOKEN" -H "Idempotency-Key: $(uuidgen)" \\',
        "  -H 'Content-Type: application/json' \\",
        '  --data \'{"main":"Suporte","issue":"Não estou recebendo a edição","description":"Desde segunda-feira a edição da manhã não chega no meu Gmail.","email":"leitora@example.com","newsletter":"Newsletter"}\'',
      ].join('\n'),
      [
        "import { createSupportClient } from '@newsletter-platform/clients';",
        '',
        'const support = createSupportClient({ baseUrl: process.env.SUPPORT_URL!, token: process.env.API_TOKEN });',
        "const { data, error } = await support.POST('/support', {",
        "  params: { header: { 'Idempotency-Key': crypto.randomUUID() } },",
        "  body: { main: 'Suporte', issue: 'Não estou recebendo a edição', description: 'Desde segunda-feira a edição da manhã não chega no meu Gmail.', email: 'leitora@example.com', newsletter: 'Newsletter' },",
        '});',
        'if (error) throw new Error(error.message);',
        'console.log(data.data.id);',
      ].join('\n'),
      [
        'import os, uuid',
        'import requests',
        '',
        'response = requests.post(',
        '    f"{os.environ[\'SUPPORT_URL\']}/support",',
        '    headers={"Authorization": "Bearer " + os.environ["API_TOKEN"], "Idempotency-Key": str(uuid.uuid4())},',
        '    json={"main": "Suporte", "issue": "Não estou recebendo a edição", "description": "Desde segunda-feira a edição da manhã não chega no meu Gmail.", "email": "leitora@example.com", "newsletter": "Newsletter"},',
        '    timeout=30,',
        ')',
        'response.raise_for_status()',
        'print(response.json()["data"]["id"])',
      ].join('\n'),
    ),
  ].join('\n\n'),
  pagination:
    'Lists take `page` (from 1) and `limit` (1–100, 20 unless given), and answer `pagination: {page, limit, total, totalPages}`. A ticket\'s messages are paged the same way.',
  failureExample: JSON.stringify(
    { success: false, message: 'Invalid request: body.email: Invalid email address', error: 'VALIDATION_FAILED', details: [{ path: 'body.email', message: 'Invalid email address' }] },
    null,
    2,
  ),
  limits:
    'Every request is counted per client IP: 100 a minute unless the operator sets `SUPPORT_RATE_LIMIT_PER_MINUTE`; opening a ticket has its own, lower limit (10 a minute, `SUPPORT_CREATE_RATE_LIMIT_PER_MINUTE`).',
});

export const supportTags: Record<string, string> = {
  tickets: 'Open, list, search, read, update, assign, resolve, delete and restore tickets (agents see every ticket; a reader sees their own).',
  messages: "A ticket's conversation: the reader's and the agents' messages, in order.",
  attachments: 'Files attached to a ticket or a message (multipart upload, download, removal), stored in object storage.',
  tags: 'Labels agents put on tickets, and the catalogue of them.',
  'quick replies': 'Saved answers agents send in one step.',
  'fast response': 'A reply drafted by AI from the ticket and its history, for an agent to review and send.',
  'bulk operations': 'One change to many tickets (status, tags, a message, deletion, AI replies), run as a workflow and followed by its id.',
  reports: "The desk's numbers: volumes, times to first answer and to resolution, agents, categories, cohorts, comparisons; cached, in JSON or CSV.",
  'inbound mail': "Requesters' mail forwarded by Mailgun's inbound routing (signed by Mailgun): stored, then processed into the tickets. The desk's SMTP/LMTP receiver takes the same mail without HTTP.",
  operations: "The service's own operations (smoke test for operators).",
};
