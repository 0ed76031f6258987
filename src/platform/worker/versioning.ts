/**
 * Worker Versioning of the payment workers (docs/architecture.md, "Shipping a workflow change
 * safely"): which Worker Deployment Version a process's workers are, and making it the deployment's
 * current version once they poll, so that new payments start on it and running ones move to it.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { VersioningBehavior, WorkerDeploymentVersion } from '@temporalio/common';
import type { Config } from '../config';
import type { Logger } from '../lib/logger';

/**
 * Every payment moves to the current version at its next workflow task. Never PINNED: a payment
 * pinned to a build no worker runs any more (after `npm start` restarts with changed code, or any
 * deploy) would wait forever; under AUTO_UPGRADE the new code replays its history, which
 * `patched()` and test/replay.test.ts keep safe.
 */
export const DEFAULT_VERSIONING_BEHAVIOR: VersioningBehavior = 'AUTO_UPGRADE';

/** The build id of a workflow bundle: its code's hash, the same for every worker of the same code. */
export function bundleBuildId(code: string): string {
  return `wf-${createHash('sha256').update(code).digest('hex').slice(0, 16)}`;
}

/** This process's version, or undefined when TEMPORAL_WORKER_VERSIONING is off. */
export function workerVersion(config: Config, taskQueue: string, bundleCode: string): WorkerDeploymentVersion | undefined {
  if (!config.TEMPORAL_WORKER_VERSIONING) return undefined;
  return {
    deploymentName: config.TEMPORAL_DEPLOYMENT_NAME ?? taskQueue.replaceAll('.', '-'),
    buildId: config.TEMPORAL_BUILD_ID ?? bundleBuildId(bundleCode),
  };
}

/**
 * Makes `version` its deployment's current version, unless it already is. The server refuses until
 * the version's pollers have reached it (and, while another version is current, until they poll
 * every task queue that version polled), so this retries until `timeoutMs`. Several processes of
 * the same build agree; of different builds, the last to start wins, as a deploy wants.
 */
export async function makeVersionCurrent(
  client: Client,
  version: WorkerDeploymentVersion,
  logger: Logger,
  { timeoutMs = 60_000, retryMs = 200, stopped }: { timeoutMs?: number; retryMs?: number; stopped?: () => boolean } = {},
): Promise<void> {
  const namespace = client.options.namespace;
  const { deploymentName, buildId } = version;
  const deadline = Date.now() + timeoutMs;
  let warnAt = Date.now() + 10_000;
  for (;;) {
    try {
      const { workerDeploymentInfo, conflictToken } = await client.workflowService.describeWorkerDeployment({ namespace, deploymentName });
      const current = workerDeploymentInfo?.routingConfig?.currentDeploymentVersion;
      if (current?.buildId === buildId) return;
      // The token makes the change conditional on what was just read: a concurrent change retries.
      await client.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId, conflictToken });
      logger.info({ deploymentName, buildId, previous: current?.buildId }, 'worker deployment version made current');
      return;
    } catch (err) {
      // Not found: the deployment's first pollers are not registered yet; failed precondition: not all.
      if (stopped?.() || Date.now() >= deadline) {
        throw new Error(`could not make ${deploymentName}.${buildId} the current worker deployment version`, { cause: err });
      }
      if (Date.now() >= warnAt) {
        logger.warn({ err, deploymentName, buildId }, 'still waiting to make the worker deployment version current');
        warnAt = Date.now() + 10_000;
      }
    }
    await sleep(retryMs);
  }
}
