/** A moment's wait for a full endpoint inside the attempt (src/webhooks/endpointTurns.activities.ts). */
import { describe, expect, it } from 'vitest';
import { EndpointTurns } from '../../src/webhooks/endpointTurns.activities';

/** A lease that is free once `free` is set; counts the looks. */
function lease() {
  const state = { free: false, looks: 0 };
  return { state, take: async () => (state.looks++, state.free) };
}

describe('EndpointTurns', () => {
  it('takes the lease as soon as an attempt to the endpoint ends, before its next look', async () => {
    const turns = new EndpointTurns();
    const { state, take } = lease();
    const waited = turns.wait('wh_1', 4, take, 60_000);
    expect(turns.waiting('wh_1')).toBe(1);
    state.free = true;
    turns.ended('wh_1');
    await expect(waited).resolves.toBe(true);
    expect(state.looks).toBe(1);
    expect(turns.waiting('wh_1')).toBe(0);
  });

  it("wakes only the longest waiter of the endpoint that ended, not another endpoint's", async () => {
    const turns = new EndpointTurns();
    const first = lease();
    const second = lease();
    const other = lease();
    const a = turns.wait('wh_1', 4, first.take, 60_000);
    const b = turns.wait('wh_1', 4, second.take, 300);
    const c = turns.wait('wh_2', 4, other.take, 300);
    first.state.free = true;
    turns.ended('wh_1');
    await expect(a).resolves.toBe(true);
    expect(second.state.looks).toBe(0);
    expect(other.state.looks).toBe(0);
    await expect(b).resolves.toBe(false);
    await expect(c).resolves.toBe(false);
  });

  it('gives up after its wait, looking again meanwhile (a lease freed by another process)', async () => {
    const turns = new EndpointTurns();
    const { state, take } = lease();
    await expect(turns.wait('wh_1', 4, take, 600)).resolves.toBe(false);
    expect(state.looks).toBeGreaterThanOrEqual(2);
    expect(turns.waiting('wh_1')).toBe(0);
    const later = lease();
    setTimeout(() => (later.state.free = true), 100);
    await expect(turns.wait('wh_1', 4, later.take, 5_000)).resolves.toBe(true);
  });

  it('beyond `limit` waiters of one endpoint, answers false at once without looking (the durable line)', async () => {
    const turns = new EndpointTurns();
    const held = [lease(), lease()];
    const waits = held.map((l) => turns.wait('wh_1', 2, l.take, 300));
    const third = lease();
    await expect(turns.wait('wh_1', 2, third.take, 60_000)).resolves.toBe(false);
    expect(third.state.looks).toBe(0);
    expect(turns.waiting('wh_1')).toBe(2);
    await Promise.all(waits);
  });
});
