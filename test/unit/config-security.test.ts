/**
 * Security defaults hold by their own settings: NODE_ENV changes none of them, and the stack's own
 * ports are known from the settings that name them (docs/security.md).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, addStackPorts, loadConfig, stackPorts } from '../../src/platform/config';

describe('WEBHOOK_ALLOW_LOOPBACK', () => {
  it('is off unless set, whatever NODE_ENV says', () => {
    for (const NODE_ENV of [undefined, 'development', 'test', 'production', 'staging'])
      expect(loadConfig({ NODE_ENV }).WEBHOOK_ALLOW_LOOPBACK, String(NODE_ENV)).toBe(false);
  });

  it('is on only when set to true, in production too', () => {
    expect(loadConfig({ WEBHOOK_ALLOW_LOOPBACK: 'true', NODE_ENV: 'production' }).WEBHOOK_ALLOW_LOOPBACK).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_LOOPBACK: 'false', NODE_ENV: 'development' }).WEBHOOK_ALLOW_LOOPBACK).toBe(false);
    expect(() => loadConfig({ WEBHOOK_ALLOW_LOOPBACK: 'yes' })).toThrow(ConfigError);
  });

  it('NODE_ENV changes no setting at all', () => {
    const { NODE_ENV: _dev, ...development } = loadConfig({ NODE_ENV: 'development' });
    const { NODE_ENV: _prod, ...production } = loadConfig({ NODE_ENV: 'production' });
    expect(production).toEqual(development);
  });
});

describe('the stack’s own ports', () => {
  it('are every port a setting names: API, metrics, Temporal, its UI, the database, STACK_PORTS', () => {
    const config = loadConfig({
      PORT: '3100',
      API_METRICS_PORT: '9100',
      WORKER_METRICS_PORT: '9101',
      TEMPORAL_ADDRESS: 'temporal.internal:7300',
      TEMPORAL_DEV_PORT: '7301',
      TEMPORAL_UI_PORT: '8300',
      DATABASE_URL: 'postgres://u:p@db.internal:5433/payments',
      STACK_PORTS: '41000, 41001,41002',
    });
    expect([...stackPorts(config)].sort()).toEqual([3100, 41000, 41001, 41002, 5433, 7300, 7301, 8300, 9100, 9101].sort());
  });

  it('take the default port of an address or URL that names none, and leave out ports given as 0', () => {
    const config = loadConfig({ TEMPORAL_ADDRESS: 'temporal', DATABASE_URL: 'postgres://db/payments', API_METRICS_PORT: '0' });
    const ports = stackPorts(config);
    expect(ports.has(7233)).toBe(true);
    expect(ports.has(5432)).toBe(true);
    expect(ports.has(0)).toBe(false);
  });

  it('grow by what the stack learns while starting (a port bound as 0, a dev server’s)', () => {
    const config = loadConfig({});
    expect(stackPorts(config).has(45678)).toBe(false);
    addStackPorts(config, [45678, undefined, 0]);
    expect(stackPorts(config).has(45678)).toBe(true);
    expect(stackPorts(config).has(0)).toBe(false);
    expect(stackPorts(loadConfig({})).has(45678)).toBe(false);
  });

  it('STACK_PORTS refuses anything but a list of ports', () => {
    for (const bad of ['abc', '70000', '1,,x', '0', '-1', '1.5'])
      expect(() => loadConfig({ STACK_PORTS: bad }), bad).toThrow(/STACK_PORTS: not a port/);
    expect(loadConfig({ STACK_PORTS: ' ' }).STACK_PORTS).toEqual([]);
  });
});
