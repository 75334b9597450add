/**
 * Links into the Temporal Web UI (issue 38, the staff console): a list of workflows filtered by a
 * visibility query (the UI reads it from `?query=`, as it writes it when one filters by hand), one
 * workflow run, one schedule. The base is TEMPORAL_UI_URL (models/config.ts). Pure.
 */

/** A string as a visibility query's literal: in double quotes, with `\` and `"` escaped. */
export const queryLiteral = (value: string): string => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** The query of the workflows whose id starts with `prefix` (of one type, when given). */
export function businessIdQuery(prefix: string, workflowType?: string): string {
  const byId = `\`WorkflowId\` STARTS_WITH ${queryLiteral(prefix)}`;
  return workflowType ? `${byId} AND \`WorkflowType\` = ${queryLiteral(workflowType)}` : byId;
}

/** The query of the running workflows of one type. */
export const runningOfTypeQuery = (workflowType: string): string => `\`WorkflowType\` = ${queryLiteral(workflowType)} AND \`ExecutionStatus\` = "Running"`;

const namespacePath = (uiUrl: string, namespace: string) => `${uiUrl}/namespaces/${encodeURIComponent(namespace)}`;

/** The UI's workflow list filtered by `query`. */
export const workflowsLink = (uiUrl: string, namespace: string, query: string): string => `${namespacePath(uiUrl, namespace)}/workflows?query=${encodeURIComponent(query)}`;

/** One run of a workflow in the UI (its history). */
export const workflowRunLink = (uiUrl: string, namespace: string, workflowId: string, runId: string): string =>
  `${namespacePath(uiUrl, namespace)}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history`;

/** One schedule in the UI. */
export const scheduleLink = (uiUrl: string, namespace: string, scheduleId: string): string => `${namespacePath(uiUrl, namespace)}/schedules/${encodeURIComponent(scheduleId)}`;
