/** The Support Ticket API (spec: support-ticket-api.md). */
import type { ServiceDefinition } from '../shared/app';
import { supportEnvelope } from '../shared/envelope';
import type { Infra } from '../shared/infra';
import { opsRoutes } from '../shared/ops.routes';

export type SupportDeps = Infra;

export const supportService: ServiceDefinition<SupportDeps> = {
  name: 'support',
  title: 'Support Ticket API',
  version: '0.1.0',
  description: 'Tickets, messages, attachments, tags, quick replies, AI fast response, bulk operations and reports.',
  envelope: supportEnvelope,
  routes: [...opsRoutes<SupportDeps>('support')],
};

export const makeSupportDeps = (infra: Infra): SupportDeps => infra;
