/**
 * A Temporal client for unit tests of operations that start workflows: it records each start
 * (id, queue, arguments) and throws what `fail` returns for a workflow id (a start that fails, a
 * run already there). Only `workflow.start`, the one call those operations make.
 */
export function fakeTemporalClient(fail?: (workflowId: string) => Error | undefined) {
  const started: { workflowId: string; taskQueue: string; args: unknown[] }[] = [];
  return {
    started,
    client: {
      workflow: {
        start: async (_wf: unknown, options: { workflowId: string; taskQueue: string; args: unknown[] }) => {
          const err = fail?.(options.workflowId);
          if (err) throw err;
          started.push({ workflowId: options.workflowId, taskQueue: options.taskQueue, args: options.args });
          return {};
        },
      },
    },
  };
}
