/**
 * Sending on WhatsApp once (issue 15): a message is claimed under its key before it is sent, so a
 * retried step never sends it twice, and its wamid is recorded once the Cloud API accepted it.
 */
import type { OutboundMessage, WhatsAppClient } from '../../models/infra/whatsapp';
import type { OutboundDoc, WhatsAppRepo } from '../../models/whatsapp/whatsapp.repo';

export interface OutboundDeps {
  whatsapp: Pick<WhatsAppRepo, 'claimOutbound' | 'markSent'>;
  /** Undefined: no access token or phone number id on this worker. */
  client: WhatsAppClient | undefined;
}

/** No WhatsApp credentials (or no secret to derive log-in codes from) on this worker: no retry changes it. */
export class WhatsAppNotConfigured extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WhatsAppNotConfigured';
  }
}

export interface Send {
  key: string;
  phone: string;
  kind: OutboundDoc['kind'];
  message: OutboundMessage;
  /** What is stored instead of the message (a log-in code's text, masked). */
  recorded?: OutboundMessage;
}

/**
 * Sends once under `key`: a message already accepted is not sent again (`duplicate`). The Cloud
 * API's refusals are the client's WhatsAppSendError (retryable or not); the network's are thrown as they are.
 */
export async function sendOnce(deps: OutboundDeps, input: Send): Promise<{ wamid: string; duplicate: boolean }> {
  if (!deps.client) throw new WhatsAppNotConfigured('WhatsApp is not configured on this worker (WHATSAPP_ACCESS_TOKEN, WHATSAPP_PHONE_NUMBER_ID)');
  const claimed = await deps.whatsapp.claimOutbound(input.key, input.phone, input.kind, input.recorded ?? input.message);
  if (claimed.wamid) return { wamid: claimed.wamid, duplicate: true };
  const wamid = await deps.client.send(input.phone, input.message);
  await deps.whatsapp.markSent(input.key, wamid);
  return { wamid, duplicate: false };
}
