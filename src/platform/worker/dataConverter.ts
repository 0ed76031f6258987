/**
 * The data converter every worker, bundle and client of the service uses: payloads that carry
 * bigint money (src/platform/payloadConverter.workflow.ts; docs/money.md, "Integers end to end"). Loaded by
 * path, as the SDK requires, so that the workflow bundle holds the same converter.
 */
import path from 'node:path';
import type { DataConverter } from '@temporalio/common';

export const PAYLOAD_CONVERTER_PATH = path.resolve(__dirname, '../payloadConverter.workflow');

export const dataConverter: DataConverter = { payloadConverterPath: PAYLOAD_CONVERTER_PATH };
