/**
 * Writes the OpenAPI documents of the four services (what each serves at /openapi.json) to a
 * directory, without a server, database or Temporal: they are built from the service definitions
 * alone (api/shared/app.ts serviceDocument), with the configuration of the environment (the quiz
 * document names the configured AI models).
 *
 *   node --import tsx ops/openapi/docs.ts [dir]     (default: a new temporary directory)
 *
 * Prints the directory. `npm run lint:openapi` runs Spectral (.spectral.yaml) over the files.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serviceDocument, type ServiceDefinition } from '../../api/shared/app';
import { definitionFor, type DefinitionSource } from '../../api/shared/server';
import { newsService } from '../../api/news/service';
import { createQuizService } from '../../api/quiz/service';
import { supportService } from '../../api/support/service';
import { webService } from '../../api/web/service';
import { parseConfig } from '../../models/config';

const sources: Record<string, DefinitionSource<never>> = {
  news: newsService as DefinitionSource<never>,
  support: supportService as DefinitionSource<never>,
  quiz: createQuizService as DefinitionSource<never>,
  web: webService as DefinitionSource<never>,
};

/** The four services' definitions (their routes), by service name (news, support, quiz, web). */
export function serviceDefinitions(config = parseConfig(process.env)): Record<string, ServiceDefinition<never>> {
  return Object.fromEntries(Object.entries(sources).map(([name, source]) => [name, definitionFor(source, config) as ServiceDefinition<never>]));
}

/** The four services' documents, by service name (news, support, quiz, web). */
export function openApiDocuments(config = parseConfig(process.env)): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(serviceDefinitions(config)).map(([name, definition]) => [name, serviceDocument(definition, config) as Record<string, unknown>]));
}

export function writeOpenApiDocuments(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return Object.entries(openApiDocuments()).map(([name, document]) => {
    const file = path.join(dir, `${name}.openapi.json`);
    writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
    return file;
  });
}

if (require.main === module) {
  const dir = process.argv[2] ?? mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  writeOpenApiDocuments(dir);
  process.stdout.write(`${dir}\n`);
}
