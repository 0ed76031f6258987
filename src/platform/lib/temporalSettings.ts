/** The Temporal settings of src/platform/config.ts: where the service's server is, its queue, and its workers' deployment (docs/settings.md). */
import { z } from 'zod';
import { flag, port } from './settingValues';

/** A Worker Deployment's name is the first half of `name.buildId`: Temporal refuses a `.` in it. */
const deploymentName = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(255)
    .refine((v) => !v.includes('.'), 'a Worker Deployment name cannot contain "."')
    .optional();

export const temporalSettings = {
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('payments'),
  TEMPORAL_DEV_PORT: port(7233),
  TEMPORAL_UI_PORT: port(8233),
  TEMPORAL_CLI_PATH: z.string().optional(),
  /**
   * Worker Versioning (docs/architecture.md, "Shipping a workflow change safely"): the workers
   * register as one version of a Worker Deployment, make it current at start, and their payments
   * auto-upgrade to it. Off: unversioned workers, as before versioning.
   */
  TEMPORAL_WORKER_VERSIONING: flag(true),
  /** The Worker Deployment; unset: the task queue's name (a `.` in it read as `-`). */
  TEMPORAL_DEPLOYMENT_NAME: deploymentName(),
  /** The build id of this worker's version; unset: derived from the workflow bundle, so workers of the same code agree. */
  TEMPORAL_BUILD_ID: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .refine((v) => !v.startsWith('__'), 'a build id cannot start with "__" (reserved by Temporal)')
    .optional(),
};
