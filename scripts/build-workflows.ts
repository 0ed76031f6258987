/** Bundle the workflow code once for production workers (samples-typescript `production` style). */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_PATH } from '../src/platform/worker/workers';
import { PAYLOAD_CONVERTER_PATH } from '../src/platform/worker/dataConverter';

export async function buildWorkflowBundle(out = WORKFLOW_BUNDLE_PATH): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: path.resolve(__dirname, '../src/platform/workflows.workflow.ts'),
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
  });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, code);
  return out;
}

if (require.main === module) {
  buildWorkflowBundle().then(
    (out) => console.log(`workflow bundle written to ${out}`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
