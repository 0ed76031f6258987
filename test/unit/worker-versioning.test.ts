/**
 * The Worker Versioning settings of docs/settings.md (TEMPORAL_WORKER_VERSIONING,
 * TEMPORAL_DEPLOYMENT_NAME, TEMPORAL_BUILD_ID) and the version a worker derives from them and its
 * workflow bundle (src/platform/worker/versioning.ts). On the dev server: test/worker-versioning.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config';
import { DEFAULT_VERSIONING_BEHAVIOR, bundleBuildId, workerVersion } from '../../src/platform/worker/versioning';

describe('worker versioning settings', () => {
  it('default: versioned, the deployment named after the task queue, the build id the bundle hash', () => {
    const config = loadConfig({});
    expect(config.TEMPORAL_WORKER_VERSIONING).toBe(true);
    expect(workerVersion(config, 'payments', 'code')).toEqual({ deploymentName: 'payments', buildId: bundleBuildId('code') });
    // Temporal writes a version as `deployment.buildId`: a `.` in the queue's name is not kept.
    expect(workerVersion(config, 'acme.payments', 'code')?.deploymentName).toBe('acme-payments');
  });

  it('the build id is the same for the same code, and another for other code', () => {
    expect(bundleBuildId('code')).toMatch(/^wf-[0-9a-f]{16}$/);
    expect(bundleBuildId('code')).toBe(bundleBuildId('code'));
    expect(bundleBuildId('code ')).not.toBe(bundleBuildId('code'));
  });

  it('read as set; off means no version', () => {
    const config = loadConfig({ TEMPORAL_DEPLOYMENT_NAME: 'custody', TEMPORAL_BUILD_ID: '2026-11-27' });
    expect(workerVersion(config, 'payments', 'code')).toEqual({ deploymentName: 'custody', buildId: '2026-11-27' });
    expect(workerVersion(loadConfig({ TEMPORAL_WORKER_VERSIONING: 'false' }), 'payments', 'code')).toBeUndefined();
  });

  it('payments auto-upgrade: a restart with changed code never strands one on a build no worker runs', () => {
    expect(DEFAULT_VERSIONING_BEHAVIOR).toBe('AUTO_UPGRADE');
  });

  it.each([
    ['TEMPORAL_DEPLOYMENT_NAME', 'acme.payments', 'TEMPORAL_DEPLOYMENT_NAME: a Worker Deployment name cannot contain "."'],
    ['TEMPORAL_DEPLOYMENT_NAME', ' ', 'TEMPORAL_DEPLOYMENT_NAME:'],
    ['TEMPORAL_BUILD_ID', '__unversioned__', 'TEMPORAL_BUILD_ID: a build id cannot start with "__"'],
    ['TEMPORAL_BUILD_ID', 'x'.repeat(256), 'TEMPORAL_BUILD_ID:'],
    ['TEMPORAL_WORKER_VERSIONING', 'yes', 'TEMPORAL_WORKER_VERSIONING:'],
  ])('%s=%j refused with a message naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});
