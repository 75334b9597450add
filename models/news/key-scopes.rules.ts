/**
 * What an API key may be: live or test, and its scopes. Pure data, shared by the API and the
 * dashboard's page (which cannot import the key rules' node:crypto).
 */
export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

export const KEY_SCOPES = ['read:articles', 'read:entities', 'read:breaking', '*'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
