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

export function writeOpenApiDocuments(dir: string): string[] {
  const config = parseConfig(process.env);
  mkdirSync(dir, { recursive: true });
  return Object.entries(sources).map(([name, source]) => {
    const file = path.join(dir, `${name}.openapi.json`);
    const definition: ServiceDefinition<never> = definitionFor(source, config);
    writeFileSync(file, `${JSON.stringify(serviceDocument(definition), null, 2)}\n`);
    return file;
  });
}

if (require.main === module) {
  const dir = process.argv[2] ?? mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  writeOpenApiDocuments(dir);
  process.stdout.write(`${dir}\n`);
}
