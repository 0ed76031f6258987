/**
 * Worker Versioning (docs/architecture.md, "Shipping a workflow change safely"): a payment started
 * by one build goes on under the next once the old build's workers are gone, as when `npm start`
 * restarts with changed code; and a payment an unversioned worker started moves to a versioned one.
 */
import { describe, expect, inject, it } from 'vitest';
import { createLogger } from '../src/platform/lib/logger';
import { buildStack } from '../src/platform/stack';
import { eventually, startStack, validPayment, type Stack } from './helpers/stack';

/** A worker (no API) of `stack`'s task queue with `env` over its settings, as another process would run. */
async function otherWorker(stack: Stack, env: Record<string, unknown>) {
  const config = Object.freeze({ ...stack.config, ...env });
  return buildStack({ config, logger: createLogger('silent'), worker: { workflowBundlePath: inject('workflowBundlePath') } });
}

/** The payment workflow's versioning as the server records it: behaviour and version of its last task. */
async function versioning(stack: Stack, paymentId: string) {
  const info = (await stack.client.workflow.getHandle(paymentId).describe()).raw.workflowExecutionInfo?.versioningInfo;
  return { behavior: info?.behavior ?? 0, deployment: info?.deploymentVersion?.deploymentName, buildId: info?.deploymentVersion?.buildId };
}

const AUTO_UPGRADE = 2; // temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE

async function withStack(env: Record<string, string>, fn: (stack: Stack, key: string) => Promise<void>) {
  const stack = await startStack(env);
  try {
    const { test_api_key: key } = await stack.newAccount();
    await fn(stack, key);
  } finally {
    await stack.stop();
  }
}

describe('worker versioning', () => {
  it('a payment started under build A goes on under build B once A is gone, and records both', async () => {
    await withStack({ TEMPORAL_BUILD_ID: 'build-a' }, async (stack, key) => {
      const created = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      // Recorded once its first workflow task completes (the visibility of it may lag the create).
      const first = await eventually(async () => {
        const v = await versioning(stack, id);
        return v.buildId === undefined ? undefined : v;
      });
      expect(first).toEqual({ behavior: AUTO_UPGRADE, deployment: stack.taskQueue, buildId: 'build-a' });

      await stack.stopWorker();
      const b = await otherWorker(stack, { TEMPORAL_BUILD_ID: 'build-b' });
      try {
        const deposited = await stack.http.post(`/api/v1/payments/${id}/deposit`, { key });
        expect(deposited.status).toBe(200);
        expect(deposited.body.status).toBe('in_custody');
        expect(await versioning(stack, id)).toEqual({ behavior: AUTO_UPGRADE, deployment: stack.taskQueue, buildId: 'build-b' });
      } finally {
        await b.stop();
      }
    });
  });

  it('a payment an unversioned worker started moves on to a versioned one', async () => {
    await withStack({ TEMPORAL_WORKER_VERSIONING: 'false' }, async (stack, key) => {
      const created = await stack.http.post('/api/v1/payments', { key, body: validPayment() });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect((await versioning(stack, id)).behavior).toBe(0);

      await stack.stopWorker();
      const versioned = await otherWorker(stack, { TEMPORAL_WORKER_VERSIONING: true, TEMPORAL_BUILD_ID: 'build-v' });
      try {
        const deposited = await stack.http.post(`/api/v1/payments/${id}/deposit`, { key });
        expect(deposited.status).toBe(200);
        expect(await versioning(stack, id)).toEqual({ behavior: AUTO_UPGRADE, deployment: stack.taskQueue, buildId: 'build-v' });
      } finally {
        await versioned.stop();
      }
    });
  });

  it('two workers of the same code agree on their build id, from the bundle', async () => {
    await withStack({}, async (stack) => {
      const other = await otherWorker(stack, {});
      try {
        const { workerDeploymentInfo } = await stack.client.workflowService.describeWorkerDeployment({
          namespace: stack.config.TEMPORAL_NAMESPACE,
          deploymentName: stack.taskQueue,
        });
        const versions = workerDeploymentInfo?.versionSummaries ?? [];
        expect(versions).toHaveLength(1);
        expect(workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId).toMatch(/^wf-[0-9a-f]{16}$/);
      } finally {
        await other.stop();
      }
    });
  });
});
