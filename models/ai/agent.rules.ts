/**
 * Agents: a system prompt, a model, a temperature, the tools it may use and the context providers
 * read before it answers. The four built-ins cannot be deleted or shadowed by registered agents.
 */
import { z } from 'zod';

export const AGENT_NAME = /^[a-z][a-z0-9-]{1,63}$/;

/** Agent, tool and provider names: 2 to 64 characters (AGENT_NAME, TOOL_NAME). */
export const NAME_MAX = 64;

/** A model call's temperature (an agent's, a chat request's). */
export const TEMPERATURE = z.number().min(0, 'temperature must be between 0 and 2').max(2, 'temperature must be between 0 and 2');

/**
 * An agent's fields, declared once: the API's bodies are built from them (api/ai/contracts.ts: the
 * model there is one the configuration accepts) and MongoDB stores them (registry.model.ts).
 */
export const AgentDefinition = z.object({
  name: z.string().max(NAME_MAX).regex(AGENT_NAME, 'name: lowercase letters, digits and -, 2 to 64 characters'),
  description: z.string().max(500),
  systemPrompt: z.string().max(20_000).trim().min(1),
  /** A model class or a configured provider id. */
  model: z.string().max(200),
  temperature: TEMPERATURE,
  tools: z.array(z.string().max(NAME_MAX)).max(20),
  contextProviders: z.array(z.string().max(NAME_MAX)).max(10),
});
export type AgentDefinition = z.output<typeof AgentDefinition>;

export const BUILTIN_AGENTS: AgentDefinition[] = [
  {
    name: 'support-assistant',
    description: 'Customer support for newsletter readers, in a casual, friendly tone.',
    systemPrompt:
      'Você é o assistente de suporte da nossa newsletter. Responda em português do Brasil, num tom leve e amigável, ' +
      'com frases curtas. Seja preciso: quando não souber, diga que vai encaminhar para a equipe. Nunca invente prazos, ' +
      'valores ou políticas. Use as ferramentas para consultar datas e buscar tickets ou matérias quando ajudar.',
    model: 'mini',
    temperature: 0.7,
    tools: ['get_current_date', 'search_database'],
    contextProviders: [],
  },
  {
    name: 'analytics-assistant',
    description: 'Analyses metrics, finds insights and formats reports.',
    systemPrompt:
      'You are an analytics assistant for a newsletter company. Analyse the metrics you are given, point out trends, ' +
      'anomalies and their likely causes, and present results as concise reports with headings, bullet points and tables. ' +
      'State assumptions. Never invent numbers: compute them from the data or say what is missing.',
    model: 'mini',
    temperature: 0.3,
    tools: ['get_current_date', 'calculate_price', 'format_json', 'search_database'],
    contextProviders: [],
  },
  {
    name: 'content-writer',
    description: 'Writes and edits newsletter content: headlines, summaries, editions.',
    systemPrompt:
      'Você é redator de uma newsletter de negócios. Escreva em português do Brasil, com clareza, ritmo e precisão; ' +
      'títulos curtos, parágrafos de até três frases, sem jargão desnecessário. Não invente fatos nem citações.',
    model: 'advanced',
    temperature: 0.8,
    tools: ['get_current_date', 'search_database'],
    contextProviders: [],
  },
  {
    name: 'tech-support',
    description: 'Helps API customers integrate: keys, plans, limits, errors and payloads.',
    systemPrompt:
      'You are technical support for the News Intelligence API. Help developers authenticate with X-API-Key, choose ' +
      'plans, understand rate limits and error responses, and fix request payloads. Give exact, runnable examples. ' +
      'Use format_json to validate JSON and calculate_price for plan prices.',
    model: 'mini',
    temperature: 0.2,
    tools: ['format_json', 'calculate_price', 'get_current_date'],
    contextProviders: [],
  },
];

export const BUILTIN_AGENT_NAMES = BUILTIN_AGENTS.map((a) => a.name);
export const isBuiltinAgent = (name: string) => BUILTIN_AGENT_NAMES.includes(name);

/** Context from MCP providers is capped per provider (spec §8). */
export const CONTEXT_PROVIDER_MAX_CHARS = 10_000;

/** Caps provider text; a truncated text ends with a note the model can read. */
export function capContext(text: string, max = CONTEXT_PROVIDER_MAX_CHARS): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return { text: `${text.slice(0, max)}\n[truncated: this context was cut to ${max} characters of ${text.length}]`, truncated: true };
}

/** The system message an agent's run starts with: its prompt, then each provider's context. */
export function systemWithContext(systemPrompt: string | undefined, contexts: { provider: string; text: string; truncated: boolean }[]): string | undefined {
  if (contexts.length === 0) return systemPrompt;
  const blocks = contexts.map(
    (c) => `<context provider="${c.provider}"${c.truncated ? ' truncated="true"' : ''}>\n${c.text}\n</context>`,
  );
  return [systemPrompt ?? '', 'Context from the configured providers (use it when relevant):', ...blocks].filter(Boolean).join('\n\n');
}
