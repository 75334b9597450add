/** The lint rule that keeps Node modules, I/O libraries, models and the activities' code out of workflow code. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const ESLINT = path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');

interface LintMessage {
  ruleId: string | null;
  line: number;
  message: string;
}

/**
 * Lints text as if it were a workflow file, with the project's real ESLint config. The file does
 * not exist, so the TypeScript project cannot type it: type information is off for it, and with
 * it the one type-aware rule.
 */
function lintAsWorkflow(code: string): LintMessage[] {
  const untyped = ['--parser-options', 'projectService:false', '--rule', '@typescript-eslint/no-floating-promises: off'];
  const r = spawnSync(process.execPath, [ESLINT, ...untyped, '--format', 'json', '--stdin', '--stdin-filename', 'workflows/ops/sample.workflow.ts'], {
    cwd: ROOT,
    input: code,
    encoding: 'utf8',
  });
  const [result] = JSON.parse(r.stdout) as { messages: LintMessage[] }[];
  return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports');
}

describe('workflow lint rule', () => {
  const banned: [string, RegExp][] = [
    ["import fs from 'node:fs';", /deterministic/],
    ["import { randomUUID } from 'crypto';", /deterministic/],
    ["import mongoose from 'mongoose';", /I\/O libraries/],
    ["import { Client } from 'minio';", /I\/O libraries/],
    ["import OpenAI from 'openai';", /I\/O libraries/],
    ["import { smokeCheckModel } from '../../models/ops/smoke-check.model';", /database/],
    ["import { createOpsActivities } from '../../activities/ops.activities';", /their own contracts/],
    ["import type { createOpsActivities } from '../../activities/ops.activities';", /their own contracts/],
    ["import { runSmokeCheck } from '../../operations/ops/smoke';", /their own contracts/],
  ];

  it('rejects Node built-ins, I/O libraries, models, and the activities and operations even as types', () => {
    const messages = lintAsWorkflow(`${banned.map(([l]) => l).join('\n')}\nexport const x = 1;\n`);
    banned.forEach(([line, message], i) => {
      const onLine = messages.filter((m) => m.line === i + 1).map((m) => m.message);
      expect({ line, onLine }).toEqual({ line, onLine: [expect.stringMatching(message)] });
    });
  });

  it('allows its own contract, pure rules, and types of the domain', () => {
    const messages = lintAsWorkflow(
      "import type { OpsActivities } from './activities';\n" +
        "import { smokeObjectKey } from '../../models/ops/smoke-check.rules';\n" +
        "import type { SmokeCheckDoc } from '../../models/ops/smoke-check.model';\n" +
        'export type A = OpsActivities;\nexport type D = SmokeCheckDoc;\nexport const k = smokeObjectKey;\n',
    );
    expect(messages).toEqual([]);
  });
});
