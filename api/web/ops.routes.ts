/**
 * The operations overview of the staff console (issue 38, item 6), on the dashboard's session:
 * each dependency's health, the services' /health, the workflow backlog per type and task queue,
 * and links into the Temporal UI by business id. Staff with platform.ops only (a customer's
 * session, and a member without it, get 403). The use case: operations/ops/overview.ts.
 */
import type { OpsOverview } from '../../operations/ops/overview';
import { routeFactory } from '../shared/route';
import { OpsOverviewView } from './contracts';
import type { WebDeps } from './deps';
import { opsOverviewExample } from './examples';
import { staffSignedIn } from './staff-session';

const route = routeFactory<WebDeps>();

const present = (o: OpsOverview) => ({ ...o, generatedAt: o.generatedAt.toISOString() });

export const opsRoutes = [
  route({
    method: 'get',
    path: '/api/staff/ops/overview',
    summary: 'Operations overview',
    description:
      "Each dependency's health (MongoDB, Temporal, MinIO, SMTP) probed from the dashboard, each service's GET /health at its public address, " +
      'the running workflows per type and the backlog and pollers of each task queue (from Temporal, within 3 s: what did not answer is null, with why), ' +
      'and for each family of workflows (ticket-bulk-…, news-source-…, the schedules’ runs) the Temporal UI listing them (TEMPORAL_UI_URL). ' +
      'Always 200 while the dashboard can check the session: what is down is what it reports. Answers are shared for 2 s. Staff with platform.ops only.',
    tags: ['staff'],
    auth: staffSignedIn('platform.ops'),
    response: OpsOverviewView,
    example: { response: opsOverviewExample },
    handler: async ({ deps }) => present(await deps.opsOverview()),
  }),
];
