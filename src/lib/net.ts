/** Ports: finding a free one, and listening on a configured one with a clear error when it is taken. */
import net from 'node:net';

/** A port nobody listens on right now (for dev servers, metrics endpoints and tests). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A port a setting names is taken: the message says which setting to change. */
class PortInUseError extends Error {
  constructor(
    readonly setting: string,
    readonly port: number,
    detail = 'is in use',
  ) {
    super(`port ${port} ${detail}: set ${setting} to a free port`);
  }
}

/**
 * Listen on `port` (0: any free one) or fail with a PortInUseError naming `setting`, before anything
 * else has been started on it. Resolves to the port actually bound.
 */
export function listenOn(server: net.Server, port: number, host: string | undefined, setting: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new PortInUseError(setting, port));
      else if (err.code === 'EACCES') reject(new PortInUseError(setting, port, 'may not be bound by this user'));
      else reject(err);
    };
    server.once('error', onError);
    const listening = () => {
      server.removeListener('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    };
    if (host === undefined) server.listen(port, listening);
    else server.listen(port, host, listening);
  });
}

interface PortSetting {
  setting: string;
  port: number;
  /** The address the service will bind; a port taken on any address it overlaps with counts. */
  host?: string;
}

/**
 * Check, before anything is started, that every port the settings name can be bound, and that no two
 * settings name the same port. Port 0 (any free port) is never checked. Throws a PortInUseError.
 */
export async function checkPortsFree(ports: PortSetting[]): Promise<void> {
  const seen = new Map<number, string>();
  for (const { setting, port, host } of ports) {
    if (port === 0) continue;
    const other = seen.get(port);
    if (other) throw new PortInUseError(setting, port, `is already ${other}`);
    seen.set(port, setting);
    const probe = net.createServer();
    await listenOn(probe, port, host, setting);
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}
