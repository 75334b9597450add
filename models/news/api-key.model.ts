import { type Connection, type Model, Schema } from 'mongoose';
import { KEY_MODES, KEY_SCOPES, type KeyMode, type KeyScope } from './api-key.rules';

/**
 * An API key as stored. The `_id` is the SHA-256 of the key (the key itself is never stored):
 * every request finds its key by `_id`. `keyId` is the key's public id (lists, revocation).
 */
export interface ApiKeyDoc {
  _id: string;
  keyId: string;
  userId: string;
  name: string;
  displayPrefix: string;
  mode: KeyMode;
  scopes: KeyScope[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

const ApiKeySchema = new Schema<ApiKeyDoc>(
  {
    _id: { type: String, required: true },
    keyId: { type: String, required: true },
    userId: { type: String, required: true },
    name: { type: String, required: true, trim: true },
    displayPrefix: { type: String, required: true },
    mode: { type: String, enum: KEY_MODES, required: true },
    scopes: { type: [String], enum: KEY_SCOPES, required: true },
    expiresAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
    lastUsedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { collection: 'api_keys', versionKey: false },
);
ApiKeySchema.index({ keyId: 1 }, { unique: true });
ApiKeySchema.index({ userId: 1, createdAt: -1 });

export function apiKeyModel(conn: Connection): Model<ApiKeyDoc> {
  return (conn.models.ApiKey as Model<ApiKeyDoc> | undefined) ?? conn.model<ApiKeyDoc>('ApiKey', ApiKeySchema);
}
