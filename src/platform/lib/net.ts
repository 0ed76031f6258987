/** Ports: finding a free one, and listening on a configured one with a clear error when it is taken. */
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

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

/**
 * This machine's ephemeral port range as WEBHOOK_LOOPBACK_PORTS reads it (`32768-60999` on Linux's
 * default), for throw-away stacks (tests, benches, the local cluster) whose receivers listen on
 * port 0; a stack's own ports stay refused inside it. Elsewhere than Linux: 1024-65535.
 */
export function ephemeralPortRange(): string {
  try {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low >= 1 && high <= 65535 && low <= high) return `${low}-${high}`;
  } catch {
    // Not Linux: the whole unprivileged range.
  }
  return '1024-65535';
}

/**
 * A port nobody listens on, below this machine's ephemeral range (from 20000): a port handed out by
 * the kernel with `listen(0)` can be taken as the source port of any outgoing connection before the
 * process meant for it binds, which a stack starting a dozen processes over a minute runs into.
 * Temporal also stores membership ports as smallint (cluster_membership.rpc_port).
 */
export async function freeLowPort(): Promise<number> {
  const below = Math.min(Number(ephemeralPortRange().split('-')[0]), 32768);
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * (below - 20000));
    if (await canListen(port)) return port;
  }
}

/** Nothing listens on `port` at 127.0.0.1 right now. */
export function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
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

/** The TCP ports a process listens on: Linux's /proc, else `lsof`; empty when neither can tell. */
export function listeningPorts(pid: number): number[] {
  try {
    const inodes = new Set<string>();
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      const link = readLink(`/proc/${pid}/fd/${fd}`);
      const socket = link && /^socket:\[(\d+)\]$/.exec(link);
      if (socket) inodes.add(socket[1]);
    }
    const ports = new Set<number>();
    for (const table of ['tcp', 'tcp6']) {
      // Columns: sl, local address (hex ip:port), remote address, state (0A: listening), …, inode (10th).
      for (const line of fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        if (fields[3] === '0A' && inodes.has(fields[9])) ports.add(parseInt(fields[1].split(':')[1], 16));
      }
    }
    return [...ports];
  } catch {
    const lsof = spawnSync('lsof', ['-nP', '-a', '-p', String(pid), '-iTCP', '-sTCP:LISTEN', '-Fn'], { encoding: 'utf8' });
    if (lsof.status !== 0) return [];
    return [...new Set(lsof.stdout.split('\n').flatMap((l) => (l.startsWith('n') ? [Number(l.slice(l.lastIndexOf(':') + 1))] : [])))];
  }
}

/** A descriptor closed between listing and reading is no socket of interest. */
function readLink(file: string): string | undefined {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined;
  }
}
