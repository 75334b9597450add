/**
 * rate-limiter-flexible's base class for stores (the one its own Mongo, Redis and SQL stores
 * extend): its package types declare it but its index does not export it, so stores import the
 * module itself.
 */
declare module 'rate-limiter-flexible/lib/RateLimiterStoreAbstract' {
  import { RateLimiterStoreAbstract } from 'rate-limiter-flexible';

  export = RateLimiterStoreAbstract;
}
