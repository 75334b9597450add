/**
 * zod's object schemas probe for eval (`new Function('')`) when they are built, unless zod is
 * jitless; the page's Content-Security-Policy (script-src 'self') refuses eval, so the probe is a
 * CSP violation in the console. Jitless parsing needs no eval. main.tsx imports this first, before
 * any schema exists (the article rules, which Preferences imports, build theirs when loaded).
 */
import { z } from 'zod';

z.config({ jitless: true });
