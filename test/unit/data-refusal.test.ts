// Which PostgreSQL errors end a projection for good (src/platform/database/dataErrors.ts) and which are retried.
import { describe, expect, it } from 'vitest';
import { isDataRefusal } from '../../src/platform/database/dataErrors';

describe('isDataRefusal', () => {
  it('is a refusal for data PostgreSQL can never store', () => {
    expect(isDataRefusal({ code: '22P05' })).toBe(true); // untranslatable character (NUL)
    expect(isDataRefusal({ code: '22001' })).toBe(true); // string too long
    expect(isDataRefusal({ code: '23514' })).toBe(true); // check violation
    expect(isDataRefusal({ code: '23503' })).toBe(true); // foreign key violation
  });

  it('is not a refusal for a lost race (unique violation) or a failure the next try may not meet', () => {
    expect(isDataRefusal({ code: '23505' })).toBe(false);
    expect(isDataRefusal({ code: '40P01' })).toBe(false); // deadlock
    expect(isDataRefusal({ code: '57P01' })).toBe(false); // server shutting down
    expect(isDataRefusal(new Error('connection terminated'))).toBe(false);
    expect(isDataRefusal(undefined)).toBe(false);
  });
});
