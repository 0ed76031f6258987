/** Request budgets, counted in this process's memory (per API process). */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimited } from '../../services/errors';

const tooMany = (msBeforeNext: number) => new RateLimited(Math.max(1, Math.ceil(msBeforeNext / 1000)));

async function consume(limiter: RateLimiterMemory, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (res) {
    if (!(res instanceof RateLimiterRes)) throw res;
    throw tooMany(res.msBeforeNext);
  }
}

/** Per-credential rate limit (RATE_LIMIT_PER_SECOND); 429 with Retry-After. */
export function rateLimit(perSecond: number) {
  const limiter = new RateLimiterMemory({ points: perSecond, duration: 1 });
  return (key: string) => consume(limiter, key);
}

/**
 * Login attempts: each costs a deliberately slow password hash, so they get their own, much
 * tighter budget: 60 attempts a minute per address, and 10 failed ones a minute per e-mail and
 * address (after which that pair waits, whatever the password).
 */
export function loginRateLimit() {
  const MAX_FAILURES = 10;
  const perAddress = new RateLimiterMemory({ points: 60, duration: 60 });
  const failures = new RateLimiterMemory({ points: MAX_FAILURES, duration: 60 });
  const pair = (ip: string, email: string) => `${ip}|${email.toLowerCase()}`;
  return {
    async attempt(ip: string, email: string) {
      await consume(perAddress, ip);
      const used = await failures.get(pair(ip, email));
      if (used && used.consumedPoints >= MAX_FAILURES) throw tooMany(used.msBeforeNext);
    },
    async failed(ip: string, email: string) {
      await failures.penalty(pair(ip, email));
    },
  };
}

/** The budget of failed authentications per client address. */
export interface FailureLimit {
  check(address: string): Promise<void>;
  failed(address: string): Promise<void>;
}

/**
 * Failed authentications (bad or unknown API key, bad, forged or expired token, none at all) per
 * client address (ctx.ip: X-Forwarded-For only under TRUST_PROXY): past `perMinute` failures in a
 * minute, every further failure from that address gets 429 until the minute is over (valid
 * credentials still pass: see src/api/auth.ts).
 */
export function authFailureLimit(perMinute: number): FailureLimit {
  const failures = new RateLimiterMemory({ points: perMinute, duration: 60 });
  return {
    async check(address: string) {
      const used = await failures.get(address);
      if (used && used.consumedPoints >= perMinute) throw tooMany(used.msBeforeNext);
    },
    async failed(address: string) {
      await failures.penalty(address);
    },
  };
}
