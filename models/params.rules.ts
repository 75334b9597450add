/**
 * Schemas for values that arrive as text (query strings, path segments) or that every service
 * checks the same way. Pure: imported by route schemas.
 */
import { z } from 'zod';

/**
 * A whole number sent as text. `z.coerce.number()` alone reads "" as 0 (`?offset=` passed as
 * offset 0); here an empty value is an error. A `.default()` on the result fills only a parameter
 * that is absent.
 */
export function wholeNumber(constrain: (n: z.ZodCoercedNumber) => z.ZodCoercedNumber = (n) => n) {
  return z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), constrain(z.coerce.number().int()));
}

/** An e-mail address as mail servers take it: RFC 5321 limits the local part to 64 and the whole to 254. */
export const emailAddress = z
  .email()
  .max(254)
  .refine((v) => v.slice(0, v.lastIndexOf('@')).length <= 64, 'the part before @ must be at most 64 characters');
