/** AI fast response for a ticket (a workflow through the platform's shared LLM client). */
import { draftFastResponse } from '../../operations/support/fast-response';
import { channelOf } from '../../operations/support/tickets';
import { SUPPORT_AGENT } from '../../models/support/ticket.rules';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import type { SupportDeps } from './deps';
import { FastResponseBody, FastResponseResult, TicketIdParams } from './contracts';
import { fastResponseExample, ticketId } from './examples';

const route = routeFactory<SupportDeps>();

export const fastResponseRoutes = [
  route({
    method: 'post',
    path: '/support/:id/fast-response',
    summary: 'Draft an AI reply (and send it when asked)',
    description:
      'A workflow drafts a reply from the ticket and its messages, the support-assistant instructions and the quick replies that match; ' +
      'the draft is stored in `replied`, and with `send: true` also sent as an admin message. 503 when no AI provider is configured or it stays unavailable.',
    tags: ['fast response'],
    auth: bearer(SUPPORT_AGENT),
    params: TicketIdParams,
    body: FastResponseBody,
    response: FastResponseResult,
    errors: [404, 409, 503, 504],
    example: {
      params: { id: ticketId },
      body: { send: true },
      response: fastResponseExample,
      message: 'Resposta enviada',
    },
    handler: async ({ params, body, auth, deps }) => {
      const data = await draftFastResponse(
        { tickets: deps.tickets, llm: deps.llm, temporal: deps.temporal, taskQueuePrefix: deps.config.temporal.taskQueuePrefix },
        { ticketId: params.id, send: body.send, by: auth.email ?? auth.sub, canal: channelOf(auth) },
      );
      return reply({ message: body.send ? 'Resposta enviada' : 'Rascunho salvo', data });
    },
  }),
];
