/**
 * A handler answers only what its route documents, checked by `tsc` (npm run typecheck) rather
 * than at run time: `ctx.body` is typed by the route's response schemas. A line marked
 * @ts-expect-error that compiles fails the type check, so none of these can silently start passing.
 * Nothing here is executed.
 */
import { z } from 'zod';
import { Routes } from '../../src/platform/http/registry';
import { DeletedResponse, WebhookTestSent } from '../../src/platform/http/schemas';

export function handlerTypes(routes: Routes) {
  routes.add(
    {
      method: 'delete',
      path: '/things/:id',
      summary: 'Delete a thing',
      tag: 'Things',
      responses: { 200: { description: 'Deleted', schema: DeletedResponse } },
    },
    (ctx) => {
      ctx.body = { id: 'thing_1', deleted: true };
      // @ts-expect-error a field of the wrong type
      ctx.body = { id: 'thing_1', deleted: false };
      // @ts-expect-error a field missing
      ctx.body = { id: 'thing_1' };
      // @ts-expect-error another route's answer
      ctx.body = { success: true, delivery_id: 'dlv_1' };
    },
  );

  // A route with two documented answers takes either, and nothing else.
  routes.add(
    {
      method: 'post',
      path: '/things',
      summary: 'Make or test a thing',
      tag: 'Things',
      body: z.object({ test: z.boolean() }),
      responses: {
        200: { description: 'Tested', schema: WebhookTestSent },
        201: { description: 'Made', schema: DeletedResponse },
      },
    },
    (ctx, { body }) => {
      ctx.body = body.test ? { success: true, delivery_id: 'dlv_1' } : { id: 'thing_1', deleted: true };
      // @ts-expect-error not a documented answer
      ctx.body = { ok: true };
    },
  );
}
