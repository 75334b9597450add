/**
 * Model classes of quiz-ai-chat-api.md §2.4. Requests name a class (mini, advanced, previous,
 * legacy) or one of the configured provider ids; anything else is a 400.
 */
export const MODEL_CLASSES = ['mini', 'advanced', 'previous', 'legacy'] as const;
export type ModelClass = (typeof MODEL_CLASSES)[number];
export type ModelMap = Record<ModelClass, string>;

export const DEFAULT_MODEL_CLASS: ModelClass = 'mini';

/** Context window per class, in tokens. */
export const MODEL_CONTEXT_TOKENS: Record<ModelClass, number> = { mini: 128_000, advanced: 128_000, previous: 128_000, legacy: 16_000 };

export interface ResolvedModel {
  modelClass: ModelClass;
  id: string;
}

export function resolveModel(requested: string | undefined, models: ModelMap): ResolvedModel | undefined {
  const name = requested ?? DEFAULT_MODEL_CLASS;
  if ((MODEL_CLASSES as readonly string[]).includes(name)) return { modelClass: name as ModelClass, id: models[name as ModelClass] };
  const modelClass = MODEL_CLASSES.find((c) => models[c] === name);
  return modelClass ? { modelClass, id: name } : undefined;
}

export function acceptedModelNames(models: ModelMap): string[] {
  return [...MODEL_CLASSES, ...new Set(Object.values(models))];
}
