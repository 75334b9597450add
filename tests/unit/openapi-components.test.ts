/**
 * The four OpenAPI documents as their customers read them (issue 36): every success response's
 * `data` is a named component (a `$ref`, or an array of one), so that a generated client gets a
 * type with a name for each answer, and a view shared by two services is one component in both.
 */
import { openApiDocuments } from '../../ops/openapi/docs';

type Schema = { $ref?: string; type?: string; items?: Schema; properties?: Record<string, Schema> };
type Operation = { responses: Record<string, { content?: Record<string, { schema?: Schema }> }> };

const documents = openApiDocuments() as unknown as Record<string, { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } }>;

/** `data` of each JSON success response that is not a named component. */
function unnamed(doc: (typeof documents)[string]): string[] {
  const found: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      for (const [status, response] of Object.entries(op.responses)) {
        const data = response.content?.['application/json']?.schema?.properties?.data;
        if (!status.startsWith('2') || !data || Object.keys(data).length === 0) continue;
        const named = data.$ref !== undefined || (data.type === 'array' && data.items?.$ref !== undefined);
        if (!named) found.push(`${method.toUpperCase()} ${path} ${status}`);
      }
    }
  }
  return found;
}

describe('the OpenAPI documents', () => {
  it.each(Object.keys(documents))('%s: every success response is a named component', (name) => {
    expect(unnamed(documents[name]!)).toEqual([]);
  });

  it('the dashboard shares the News API and quiz views as the same components', () => {
    const web = documents.web!.components.schemas;
    for (const [id, from] of [
      ['ApiKey', 'news'],
      ['Preferences', 'news'],
      ['Subscription', 'news'],
      ['QuizSummary', 'quiz'],
      ['Streak', 'quiz'],
    ] as const) {
      expect({ id, schema: web[id] }).toEqual({ id, schema: documents[from]!.components.schemas[id] });
    }
  });
});
