/** The activities the WhatsApp workflows call: conversations and alerts (activities/whatsapp.activities.ts). */
import type { OutboundMessage } from '../../models/infra/whatsapp';
import type { Sector, Topic } from '../../models/news/article.rules';
import type { InboundContent } from '../../models/whatsapp/webhook.rules';

export interface WhatsAppActivities {
  send(input: { key: string; phone: string; kind: 'reply' | 'alert' | 'code'; message: OutboundMessage }): Promise<{ wamid: string; duplicate: boolean }>;
  loadInbound(id: string): Promise<{ content: InboundContent; handled: boolean } | null>;
  markHandled(id: string): Promise<undefined>;
  readerOf(phone: string): Promise<{ userId: string | null; name: string | null; provisional?: boolean }>;
  latestNews(userId: string | null): Promise<string>;
  breakingNews(): Promise<string>;
  accountSummary(input: { userId: string | null; phone: string }): Promise<string>;
  setAlerts(input: { userId: string; on: boolean }): Promise<void>;
  loadPreferences(userId: string): Promise<{ sectors: Sector[]; topics: Topic[] }>;
  savePreferences(input: { userId: string; sectors: Sector[]; topics: Topic[] }): Promise<void>;
  signUp(input: { phone: string; name: string; email: string }): Promise<'created' | 'emailTaken'>;
  alertRecipients(input: { articleId: string; after: string | null; limit: number }): Promise<{ title: string | null; recipients: { userId: string; phone: string; inWindow: boolean }[]; next: string | null }>;
  sendAlerts(input: { articleId: string; title: string; recipients: { phone: string; inWindow: boolean }[] }): Promise<{ sent: number; capped: number; refused: number }>;
  requestLoginCode(input: { phone: string; email: string; key: string }): Promise<void>;
}
