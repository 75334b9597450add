/**
 * The WhatsApp conversation workflow's timing on Temporal's time-skipping test server (issue 15):
 * it continues as new after `maxMessagesPerRun` messages, carrying the flow in progress, and ends
 * after the idle time without a message (30 minutes here, passed in seconds). Activities are the
 * real ones: the real database, replies through the Cloud API double.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowClient } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type mongoose from 'mongoose';
import { createWhatsAppActivities } from '../../activities/whatsapp.activities';
import { createWhatsAppRepo } from '../../models/whatsapp/whatsapp.repo';
import { inboundSignal, whatsappConversationWorkflow, type ConversationInput } from '../../workflows/whatsapp/conversation.workflow';
import { testConfig } from '../helpers/service';
import { timeSkippingWorker } from '../helpers/time-skipping';
import { messagesTo, newPhone, texts } from '../helpers/whatsapp';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let client: WorkflowClient;
let conn: mongoose.Connection;
let taskQueue: string;
let close: (() => Promise<void>) | undefined;
const IDLE = 30 * 60_000;

beforeAll(async () => {
  ({ env, client, conn, taskQueue, close } = await timeSkippingWorker('whatsapp-time', (c) => createWhatsAppActivities({ conn: c, config: testConfig(), codeSecret: 'time-skipping-test-secret' })));
});
afterAll(async () => {
  await close?.();
});

let sentAt = Date.now();
/** Stores a reader's message as the webhook does, and signals it to the phone's conversation. */
async function send(phone: string, text: string): Promise<void> {
  const id = `wamid.${randomUUID()}`;
  const at = new Date((sentAt += 1000));
  await createWhatsAppRepo(conn).recordInbound({ id, phone, profileName: null, sentAt: at, phoneNumberId: null, content: { kind: 'text', text } }, new Date());
  await client.signalWithStart(whatsappConversationWorkflow, {
    taskQueue,
    workflowId: `whatsapp-${phone}`,
    args: [{ phone, idleMs: IDLE, maxMessagesPerRun: 2 } satisfies ConversationInput],
    signal: inboundSignal,
    signalArgs: [{ id, sentAt: at.getTime() }],
  });
}

it('continues as new with the flow in progress, and ends after 30 idle minutes', async () => {
  const phone = newPhone();
  const email = `time-${randomUUID().slice(0, 8)}@example.com`;
  await send(phone, 'cadastro');
  await messagesTo(phone, 1);
  const first = await client.getHandle(`whatsapp-${phone}`).describe();
  await send(phone, 'Carla Dias');
  await messagesTo(phone, 2);
  // Two messages handled: the run continued as new, the sign-up waiting for the e-mail.
  const handle = client.getHandle(`whatsapp-${phone}`);
  for (let i = 0; (await handle.describe()).runId === first.runId; i += 1) {
    if (i > 100) throw new Error('the conversation did not continue as new');
    await new Promise((r) => setTimeout(r, 100));
  }
  expect((await client.getHandle(`whatsapp-${phone}`, first.runId).describe()).status.name).toBe('CONTINUED_AS_NEW');
  await send(phone, email);
  expect(texts(await messagesTo(phone, 3))).toEqual([
    'Vamos criar sua conta. Qual é o seu nome?',
    'Prazer, Carla Dias! Agora, qual é o seu e-mail?',
    expect.stringMatching(/^Conta criada, Carla Dias!/),
  ]);
  expect((await createWhatsAppRepo(conn).contact(phone))?.userId).toMatch(/^usr_wa_/);

  await env.sleep(IDLE - 60_000);
  expect((await handle.describe()).status.name).toBe('RUNNING');
  await env.sleep(2 * 60_000);
  expect(await handle.result()).toEqual({ handled: 1, ended: 'idle' });

  // Its history is the conversation's replay fixture (kept up to date with RECORD_HISTORY=1).
  if (process.env.RECORD_HISTORY === '1') {
    const dir = path.resolve(__dirname, '../fixtures/histories');
    writeFileSync(path.join(dir, 'whatsappConversationWorkflow.json'), `${historyToJSON(await client.getHandle(`whatsapp-${phone}`, first.runId).fetchHistory())}\n`);
    writeFileSync(path.join(dir, 'whatsappConversationWorkflow-continued.json'), `${historyToJSON(await handle.fetchHistory())}\n`);
  }
});
