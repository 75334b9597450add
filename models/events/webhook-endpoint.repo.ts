/**
 * Customers' webhook endpoints (`webhook_endpoints`, issue 40): where an account's events are
 * delivered, which ones, and the secrets that sign them. The secrets are stored sealed
 * (secret-box.ts: AES-256-GCM bound to the endpoint's id), never hashed, since the sender signs
 * with them; only `signingSecrets` opens them. Every read and write but the sender's names the
 * account too, so another account's endpoint is simply not found.
 *
 * How many endpoints an account holds is kept in `webhook_endpoint_counts`, one document per
 * account advanced by a conditional `$inc` (`reserveSlot`): the plan's cap holds under concurrent
 * creations without transactions, which the development database lacks. A slot is taken before
 * the insert and given back after a delete (or a failed insert), so a crash in between leaves the
 * account a slot short, never a slot over.
 */
import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { EventType, WebhookFilters } from './webhook.rules';
import type { SecretBox } from './secret-box';
import { PLAN_LIMITS, PLANS } from '../shared/plan.rules';
import { collectionOf, indexesOnce, isDuplicateKey, writeRacingOnUniqueKey } from '../infra/mongo';

export const WEBHOOK_ENDPOINTS = 'webhook_endpoints';
export const WEBHOOK_ENDPOINT_COUNTS = 'webhook_endpoint_counts';

/** How long the secret a rotation replaced still signs (beside the new one). */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** `we_` and 16 random bytes in base64url. */
export const WEBHOOK_ENDPOINT_ID = /^we_[A-Za-z0-9_-]{22}$/;
export const newWebhookEndpointId = (): string => `we_${randomBytes(16).toString('base64url')}`;

export const ENDPOINT_STATES = ['enabled', 'disabled'] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];
/** Why an endpoint is disabled: 410 Gone from the receiver, five days of failures, or its owner. */
export const DISABLED_REASONS = ['gone', 'failing', 'owner'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

export interface StoredSecret {
  /** secret-box's `v1.<iv>.<tag>.<ciphertext>`, bound to the endpoint's id. */
  ciphertext: string;
  createdAt: Date;
  /** Null for the current secret; when a rotation replaced it, the end of its overlap. */
  expiresAt: Date | null;
}

export interface WebhookEndpointDoc {
  _id: string;
  accountId: string;
  url: string;
  description: string | null;
  eventTypes: EventType[];
  filters: WebhookFilters;
  state: EndpointState;
  disabledReason: DisabledReason | null;
  failingSince: Date | null;
  /** When the owner was told the endpoint was disabled for failing (once per disabling); absent before. */
  ownerMailedAt?: Date | null;
  /** The current secret first. */
  secrets: StoredSecret[];
  createdAt: Date;
  updatedAt: Date;
}

/** What a customer may change of an endpoint. */
export interface WebhookEndpointChanges {
  url?: string;
  description?: string | null;
  eventTypes?: EventType[];
  filters?: WebhookFilters;
  state?: EndpointState;
}

interface CountDoc {
  _id: string;
  n: number;
}

/** The newest first. */
const NEWEST = { createdAt: -1, _id: -1 } as const;
/** No account may hold more than the largest plan's cap, so a list of that many is the whole list. */
export const ENDPOINTS_LISTED = Math.max(...PLANS.map((p) => PLAN_LIMITS[p].webhookEndpoints));

export function createWebhookEndpointRepo(conn: Connection, box: SecretBox) {
  const endpoints = () => collectionOf<WebhookEndpointDoc>(conn, WEBHOOK_ENDPOINTS);
  const counts = () => collectionOf<CountDoc>(conn, WEBHOOK_ENDPOINT_COUNTS);
  const ensureIndexes = () =>
    indexesOnce(conn, WEBHOOK_ENDPOINTS, () =>
      endpoints().createIndexes([
        { key: { accountId: 1, ...NEWEST }, name: 'account_newest' },
        // The fan-out's pages: the enabled endpoints of an event type, by id.
        { key: { eventTypes: 1, state: 1, _id: 1 }, name: 'subscribed' },
      ]),
    );
  const seal = (id: string, secret: string, createdAt: Date): StoredSecret => ({ ciphertext: box.seal(secret, id), createdAt, expiresAt: null });
  const signingOf = (doc: Pick<WebhookEndpointDoc, '_id' | 'secrets'>, now: Date): string[] =>
    doc.secrets.filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now.getTime()).map((s) => box.open(s.ciphertext, doc._id));

  const releaseSlot = async (accountId: string): Promise<void> => {
    await counts().updateOne({ _id: accountId, n: { $gt: 0 } }, { $inc: { n: -1 } });
  };

  return {
    ensureIndexes,

    /**
     * Takes one of the account's `cap` places, atomically: true when taken, false when the account
     * already holds `cap`. The account's counter is inserted first if it has none (racing first
     * creations: one insert wins, the others meet the _id index), then advanced by a `$inc` whose
     * filter holds only below the cap, so no two creations can take the last place. (An upsert
     * under that filter would do both at once, but the development database answers its
     * duplicate key as an internal error rather than E11000.)
     */
    async reserveSlot(accountId: string, cap: number): Promise<boolean> {
      if (!(await counts().findOne({ _id: accountId }, { projection: { _id: 1 } }))) {
        try {
          await writeRacingOnUniqueKey(() => counts().insertOne({ _id: accountId, n: 0 }));
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }
      return (await counts().updateOne({ _id: accountId, n: { $lt: cap } }, { $inc: { n: 1 } })).modifiedCount === 1;
    },
    releaseSlot,
    /** The places the account holds (its endpoints, and creations under way). */
    async countForAccount(accountId: string): Promise<number> {
      return (await counts().findOne({ _id: accountId }))?.n ?? 0;
    },

    /** Stores a new endpoint with its first secret (given in clear, stored sealed). */
    async create(input: { accountId: string; url: string; description: string | null; eventTypes: EventType[]; filters: WebhookFilters; secret: string; now: Date }): Promise<WebhookEndpointDoc> {
      await ensureIndexes();
      const _id = newWebhookEndpointId();
      const doc: WebhookEndpointDoc = {
        _id,
        accountId: input.accountId,
        url: input.url,
        description: input.description,
        eventTypes: input.eventTypes,
        filters: input.filters,
        state: 'enabled',
        disabledReason: null,
        failingSince: null,
        secrets: [seal(_id, input.secret, input.now)],
        createdAt: input.now,
        updatedAt: input.now,
      };
      await endpoints().insertOne(doc);
      return doc;
    },

    /** The account's endpoints, newest first. */
    async listForAccount(accountId: string): Promise<WebhookEndpointDoc[]> {
      await ensureIndexes();
      return endpoints().find({ accountId }, { sort: NEWEST, limit: ENDPOINTS_LISTED }).toArray();
    },

    /** One of the account's endpoints; another account's is null, as an unknown one. */
    getForAccount: (accountId: string, id: string): Promise<WebhookEndpointDoc | null> => endpoints().findOne({ _id: id, accountId }),

    /**
     * Changes an endpoint of the account. Disabling records the owner as the reason; enabling
     * clears the reason and the failing streak.
     */
    async update(accountId: string, id: string, changes: WebhookEndpointChanges, now: Date): Promise<WebhookEndpointDoc | null> {
      const set: Record<string, unknown> = { updatedAt: now };
      for (const field of ['url', 'description', 'eventTypes', 'filters'] as const) if (changes[field] !== undefined) set[field] = changes[field];
      if (changes.state === 'disabled') Object.assign(set, { state: 'disabled', disabledReason: 'owner' });
      if (changes.state === 'enabled') Object.assign(set, { state: 'enabled', disabledReason: null, failingSince: null, ownerMailedAt: null });
      return endpoints().findOneAndUpdate({ _id: id, accountId }, { $set: set }, { returnDocument: 'after' });
    },

    /** Removes an endpoint of the account (and gives its place back); false when there was none. */
    async remove(accountId: string, id: string): Promise<boolean> {
      const gone = (await endpoints().deleteOne({ _id: id, accountId })).deletedCount === 1;
      if (gone) await releaseSlot(accountId);
      return gone;
    },

    /**
     * Gives the endpoint a new current secret: the one it replaces still signs until `now` + 24 h,
     * secrets whose overlap has ended are dropped. Written only over the current secret read (a
     * rotation racing another is tried again on what the other wrote), so none is lost or kept twice.
     */
    async rotateSecret(accountId: string, id: string, secret: string, now: Date): Promise<WebhookEndpointDoc | null> {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const doc = await endpoints().findOne({ _id: id, accountId });
        if (!doc) return null;
        const [current, ...older] = doc.secrets;
        const kept = older.filter((s) => s.expiresAt !== null && s.expiresAt.getTime() > now.getTime());
        const secrets = [seal(id, secret, now), ...(current ? [{ ...current, expiresAt: new Date(now.getTime() + SECRET_OVERLAP_MS) }] : []), ...kept];
        const updated = await endpoints().findOneAndUpdate(current ? { _id: id, accountId, 'secrets.0.ciphertext': current.ciphertext } : { _id: id, accountId, secrets: { $size: 0 } }, { $set: { secrets, updatedAt: now } }, { returnDocument: 'after' });
        if (updated) return updated;
      }
      throw new Error('rotateSecret: the endpoint kept changing under five rotations in a row');
    },

    /**
     * A page of the enabled endpoints subscribed to `type`, by id after `after` (the fan-out's
     * pages, whatever the account): never their secrets.
     */
    async pageSubscribed(type: EventType, after: string | null, limit: number): Promise<Omit<WebhookEndpointDoc, 'secrets'>[]> {
      await ensureIndexes();
      return endpoints()
        .find({ eventTypes: type, state: 'enabled', ...(after ? { _id: { $gt: after } } : {}) }, { projection: { secrets: 0 }, sort: { _id: 1 }, limit })
        .toArray();
    },

    /** An endpoint whatever its account (the sender's read), without its secrets. */
    getById: (id: string): Promise<Omit<WebhookEndpointDoc, 'secrets'> | null> => endpoints().findOne({ _id: id }, { projection: { secrets: 0 } }),

    /** A delivery failed: the failing streak starts now unless it had started. Answers since when it fails (null: the endpoint is gone). */
    async recordFailure(id: string, now: Date): Promise<Date | null> {
      await endpoints().updateOne({ _id: id, failingSince: null }, { $set: { failingSince: now } });
      return (await endpoints().findOne({ _id: id }, { projection: { failingSince: 1 } }))?.failingSince ?? null;
    },

    /** A delivery succeeded: the failing streak, if any, is over. */
    async recordSuccess(id: string): Promise<void> {
      await endpoints().updateOne({ _id: id, failingSince: { $ne: null } }, { $set: { failingSince: null } });
    },

    /**
     * Disables an enabled endpoint for `reason` (410 Gone, or five days of failures): true when
     * this call disabled it, false when it was disabled (or removed) already.
     */
    async disable(id: string, reason: Exclude<DisabledReason, 'owner'>, now: Date): Promise<boolean> {
      const res = await endpoints().updateOne({ _id: id, state: 'enabled' }, { $set: { state: 'disabled', disabledReason: reason, ownerMailedAt: null, updatedAt: now } });
      return res.modifiedCount === 1;
    },

    /**
     * Takes the right to mail the owner that the endpoint was disabled for failing, once per
     * disabling: true for the one caller that takes it. releaseOwnerMail gives it back when the
     * mail could not be handed over.
     */
    async claimOwnerMail(id: string, now: Date): Promise<boolean> {
      const res = await endpoints().updateOne({ _id: id, state: 'disabled', disabledReason: 'failing', ownerMailedAt: { $in: [null] } }, { $set: { ownerMailedAt: now } });
      return res.modifiedCount === 1;
    },
    async releaseOwnerMail(id: string, claimedAt: Date): Promise<void> {
      await endpoints().updateOne({ _id: id, ownerMailedAt: claimedAt }, { $set: { ownerMailedAt: null } });
    },

    /** The secrets that sign a delivery at `now`, the current one first, opened (for the sender). */
    async signingSecrets(id: string, now: Date): Promise<string[]> {
      const doc = await endpoints().findOne({ _id: id }, { projection: { secrets: 1 } });
      return doc ? signingOf({ _id: id, secrets: doc.secrets }, now) : [];
    },

    /**
     * What one delivery needs in one read: the endpoint and the secrets that sign at `now`,
     * opened (the current one first). Null when the endpoint is gone.
     */
    async forDelivery(id: string, now: Date): Promise<{ endpoint: Omit<WebhookEndpointDoc, 'secrets'>; secrets: string[] } | null> {
      const doc = await endpoints().findOne({ _id: id });
      if (!doc) return null;
      const { secrets: _stored, ...endpoint } = doc;
      return { endpoint, secrets: signingOf(doc, now) };
    },
  };
}

export type WebhookEndpointRepo = ReturnType<typeof createWebhookEndpointRepo>;
