/**
 * Fields of response schemas with the bounds every value the services send keeps, so that the
 * OpenAPI documents can promise them (maxLength, formats) and the checked responses of the tests
 * hold them to it (docs/decisions.md "The OpenAPI documents").
 */
import { z } from 'zod';

/** `Date#toISOString()`: 24 characters for years 0–9999. */
export const IsoDateTime = z.iso.datetime().max(30);
/** A calendar day, YYYY-MM-DD. */
export const IsoDate = z.iso.date().max(10);
/** Ids made with `randomUUID()`. */
export const Uuid = z.uuid().max(36);
/** Text at most `max` characters long (the bound its input was validated with). */
export const Text = (max: number) => z.string().max(max);
/** A count or total: a whole number from 0 up. */
export const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * Text searched for with a regular expression (case-insensitive prefix or substring). A NUL cannot
 * be in a BSON regular expression: the driver refuses it, which surfaced as 500s (support's ticket
 * search, the dashboard's catalogue search), so it is refused here with a 400.
 */
// eslint-disable-next-line no-control-regex -- matching the NUL character is the point
export const SearchText = (max: number) => z.string().max(max).regex(/^[^\u0000]*$/, 'must not contain a NUL character');
