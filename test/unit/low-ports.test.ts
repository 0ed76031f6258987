/**
 * The local cluster's and its test's ports come from below the ephemeral range: a port the kernel
 * hands out with listen(0) can be taken as some outgoing connection's source port before the
 * process meant for it binds (a CI run lost api-2's port 36422 that way; docs/testing.md).
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { canListen, ephemeralPortRange, freeLowPort } from '../../src/platform/lib/net';
import { freePortPair } from '../../tools/testSupport';

const ephemeralLow = Number(ephemeralPortRange().split('-')[0]);

describe('ports below the ephemeral range', () => {
  it('freeLowPort and freePortPair pick from 20000 up to the ephemeral range, free to listen on', async () => {
    for (let i = 0; i < 20; i += 1) {
      const low = await freeLowPort();
      expect(low).toBeGreaterThanOrEqual(20000);
      expect(low).toBeLessThan(Math.min(ephemeralLow, 32768));
      const pair = await freePortPair();
      expect(pair).toBeGreaterThanOrEqual(20000);
      expect(pair + 1).toBeLessThan(Math.min(ephemeralLow, 32768) + 1);
      expect(await canListen(pair)).toBe(true);
      expect(await canListen(pair + 1)).toBe(true);
    }
  });

  it('canListen says no for a port something listens on', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    expect(await canListen(port)).toBe(false);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await canListen(port)).toBe(true);
  });
});
