/**
 * What the activities work with, handed to them by the worker (src/platform/worker/workers.ts): every one the
 * database, the settings and a logger; those that start or signal workflows a Temporal client too.
 */
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Config } from './config';
import type { Logger } from './lib/logger';

export interface ActivityResources {
  db: Knex;
  config: Config;
  logger: Logger;
}

/** For the activities that start a delivery's series or wake one (publication, delivery). */
export interface ActivityResourcesWithClient extends ActivityResources {
  temporal: Client;
}
