/** The operations overview (GET /api/staff/ops/overview, platform.ops: api/web/ops.routes.ts; view OpsOverview in api/web/contracts.ts). */

export interface OpsOverview {
  generatedAt: string;
  dependencies: { name: 'mongodb' | 'temporal' | 'minio' | 'smtp'; status: 'up' | 'down'; latencyMs: number; error: string | null }[];
  services: {
    name: 'news' | 'support' | 'quiz' | 'web';
    url: string;
    status: 'up' | 'degraded' | 'unreachable';
    httpStatus: number | null;
    latencyMs: number | null;
    down: string[];
    error: string | null;
  }[];
  backlog: {
    running: number | null;
    byWorkflowType: { workflowType: string; running: number | null; temporalUiUrl: string }[];
    taskQueues: { name: string; workflowTasks: number | null; activityTasks: number | null; workflowPollers: number | null; activityPollers: number | null; oldestTaskAgeMs: number | null }[];
    error: string | null;
  };
  workflowFamilies: { family: string; workflowType: string; idPattern: string; idPrefix: string | null; taskQueue: string; query: string; temporalUiUrl: string }[];
  temporalUi: { url: string; namespace: string };
}

/** How often the overview is read again while the page is visible. */
export const REFRESH_MS = 10_000;
