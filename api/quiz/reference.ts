/** The Quiz and AI Chat API's reference overview and tag descriptions (issue 37). */
import { firstRequestBlocks, overview } from '../shared/reference';

export const quizDescription = overview({
  summary:
    "Readers keep a streak by reading each day's edition. A day missed can be recovered, for a few days, by passing a quiz on that edition: the quizzes are generated every morning and night from the editions. Under `/ai`, the platform's AI chat: conversations, tool calls, agents and MCP context providers, with a daily token budget per user.",
  credential: [
    'Every operation takes a bearer token (`Authorization: Bearer …`), a JWT from the identity provider this deployment trusts:',
    '- a **reader** (any signed-in user) reads the available quizzes, takes them and reads their streak;',
    '- `quiz.admin` manages editions and quizzes; `ai.view` and `ai.edit` read and change the AI registry.',
  ].join('\n'),
  firstRequest: [
    'The quizzes a reader can take now, to recover missed days (the `servers` entry above is the address to use as `QUIZ_URL`):',
    firstRequestBlocks(
      'curl -sS "$QUIZ_URL/quiz/available" -H "Authorization: Bearer $API_TOKEN"',
      [
        "import { createQuizClient } from '@newsletter-platform/clients';",
        '',
        'const quiz = createQuizClient({ baseUrl: process.env.QUIZ_URL!, token: process.env.API_TOKEN });',
        "const { data, error } = await quiz.GET('/quiz/available');",
        'if (error) throw new Error(error.message);',
        'for (const q of data.data.quizzes) console.log(q.title, q.availableUntil);',
      ].join('\n'),
      [
        'import os',
        'import requests',
        '',
        'response = requests.get(',
        '    f"{os.environ[\'QUIZ_URL\']}/quiz/available",',
        '    headers={"Authorization": "Bearer " + os.environ["API_TOKEN"]},',
        '    timeout=30,',
        ')',
        'response.raise_for_status()',
        'for quiz in response.json()["data"]["quizzes"]:',
        '    print(quiz["title"], quiz["availableUntil"])',
      ].join('\n'),
    ),
  ].join('\n\n'),
  pagination: 'Lists take `page` (from 1) and `limit` (1–100), and answer `pagination: {page, limit, total, totalPages}`.',
  failureExample: JSON.stringify({ success: false, message: 'You have already attempted this quiz', code: 'FORBIDDEN' }, null, 2) +
    '\n```\n\nUnder `/ai` the message is in `error`:\n\n```json\n' +
    JSON.stringify({ success: false, error: 'Daily AI token budget spent: 500000 of 500000 tokens used today (UTC); it resets at 2026-11-27T00:00:00.000Z', code: 'RATE_LIMITED' }, null, 2),
  limits:
    'Requests are counted per user: 300 a minute unless the operator sets `RATE_LIMIT_PER_USER_PER_MINUTE`. The AI area has its own limit (100 a minute, `AI_RATE_LIMIT_PER_MINUTE`) and a daily token budget per user (`GET /ai/usage` shows what is left).',
});

export const quizTags: Record<string, string> = {
  quiz: "A reader's side: the quizzes available to recover missed days, taking one, the attempts, the streak and the days read.",
  'quiz admin': 'Editions (the texts quizzes are generated from), generation runs and the daily schedule, quizzes with their answers, regenerated or written by hand (permission quiz.admin).',
  ai: 'AI chat, with tools, structured answers and streaming; agents run by name; usage and the daily token budget.',
  'ai registry': 'Agents, HTTP tools and MCP context providers, built-in and registered (ai.view to read, ai.edit to change).',
  operations: "The service's own operations (smoke test for operators).",
};
