/** Request budgets, counted in this process's memory (per API process). */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from './httpErrors';

/** The budget a refusal names, as the quotas' 409s do: how many, and the setting that says so. */
export interface Budget {
  limit: number;
  setting: string;
}

/** 429 rate_limited with Retry-After, `details` naming the budget met (docs/security.md). */
export function tooMany(retryAfterSeconds: number, { limit, setting }: Budget): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError(
    429,
    'rate_limited',
    `too many requests; retry in ${seconds} s`,
    { limit, setting },
    { 'Retry-After': String(seconds) },
  );
}

const afterMs = (msBeforeNext: number, budget: Budget) => tooMany(msBeforeNext / 1000, budget);

async function consume(limiter: RateLimiterMemory, key: string, budget: Budget): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (res) {
    if (!(res instanceof RateLimiterRes)) throw res;
    throw afterMs(res.msBeforeNext, budget);
  }
}

/**
 * The request rate limit (RATE_LIMIT_PER_SECOND), counted per credential and per account and mode
 * together: minting more keys never multiplies an account's budget. 429 with Retry-After.
 */
export function rateLimit(perSecond: number) {
  const limiter = new RateLimiterMemory({ points: perSecond, duration: 1 });
  const budget = { limit: perSecond, setting: 'RATE_LIMIT_PER_SECOND' };
  return async (principal: { credential: string; accountId: string; livemode: boolean }) => {
    await consume(limiter, `credential:${principal.credential}`, budget);
    await consume(limiter, `account:${principal.accountId}:${principal.livemode ? 'live' : 'test'}`, budget);
  };
}

interface LoginLimits {
  /** Attempts a minute per client address. */
  attemptsPerMinute: number;
  /** Failures a minute per e-mail and client address. */
  failuresPerMinute: number;
  /** Failures an hour per e-mail, whatever the address: many addresses guess no faster than one. */
  failuresPerEmailPerHour: number;
}

const LOGIN_DEFAULTS: LoginLimits = { attemptsPerMinute: 60, failuresPerMinute: 10, failuresPerEmailPerHour: 50 };

/**
 * Login attempts: each costs a deliberately slow password hash, so they get their own, much
 * tighter budgets: attempts per address, failures per e-mail and address, and failures per e-mail
 * across all addresses (after which that e-mail waits, whatever the password). Only wrong
 * passwords count against an e-mail, so guessing cannot lock its owner out for long.
 */
export function loginRateLimit(limits: LoginLimits = LOGIN_DEFAULTS) {
  const perAddress = new RateLimiterMemory({ points: limits.attemptsPerMinute, duration: 60 });
  const failures = new RateLimiterMemory({ points: limits.failuresPerMinute, duration: 60 });
  const emailFailures = new RateLimiterMemory({ points: limits.failuresPerEmailPerHour, duration: 3600 });
  const pair = (ip: string, email: string) => `${ip}|${email.toLowerCase()}`;
  const exhausted = async (limiter: RateLimiterMemory, key: string, budget: Budget) => {
    const used = await limiter.get(key);
    if (used && used.consumedPoints >= budget.limit) throw afterMs(used.msBeforeNext, budget);
  };
  return {
    async attempt(ip: string, email: string) {
      await consume(perAddress, ip, { limit: limits.attemptsPerMinute, setting: 'LOGIN_ATTEMPTS_PER_MINUTE' });
      await exhausted(failures, pair(ip, email), { limit: limits.failuresPerMinute, setting: 'LOGIN_FAILURES_PER_MINUTE' });
      await exhausted(emailFailures, email.toLowerCase(), {
        limit: limits.failuresPerEmailPerHour,
        setting: 'LOGIN_FAILURES_PER_EMAIL_PER_HOUR',
      });
    },
    async failed(ip: string, email: string) {
      await failures.penalty(pair(ip, email));
      await emailFailures.penalty(email.toLowerCase());
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
 * credentials still pass: see src/tenants/authentication.middleware.ts).
 */
export function authFailureLimit(perMinute: number): FailureLimit {
  const failures = new RateLimiterMemory({ points: perMinute, duration: 60 });
  return {
    async check(address: string) {
      const used = await failures.get(address);
      if (used && used.consumedPoints >= perMinute)
        throw afterMs(used.msBeforeNext, { limit: perMinute, setting: 'AUTH_FAILURES_PER_MINUTE' });
    },
    async failed(address: string) {
      await failures.penalty(address);
    },
  };
}
