// @ts-check
/**
 * An endpoint's line wakes its waiters instead of reserving leases for them (docs/webhooks.md, "No
 * tenant slows another"; src/webhooks/endpointLeases.repository.ts). A freed lease is free at once: an attempt
 * already running takes it while the line's first waiter is being woken, so an endpoint whose
 * receiver answers quickly is never idle while deliveries wait. The waiter keeps its place in line
 * (`waiting_since`) until it takes a lease; `woken_until` keeps the next releases from waking the
 * same waiter again while its run is on its way, so that releases in quick succession wake
 * waiters in turn.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.timestamp('woken_until', { useTz: true }).nullable();
  });
  await knex.raw(`
    create or replace function take_endpoint_lease(p_delivery_id text, p_webhook_id text, p_limit integer, p_lease_ms double precision, p_run text)
    returns boolean language plpgsql volatile as $$
    declare
      now_ timestamptz;
      own boolean;
      busy bigint;
    begin
      perform 1 from webhooks where id = p_webhook_id for update;
      now_ := clock_timestamp();
      -- A lease of its own not yet expired (its activity retried after its worker died) is kept whatever the count.
      select exists (select 1 from webhook_deliveries where id = p_delivery_id and in_flight_until > now_),
             (select count(*) from webhook_deliveries
               where webhook_id = p_webhook_id and id <> p_delivery_id and in_flight_until > now_)
        into own, busy;
      if not (own or busy < p_limit) then
        -- In line once: a delivery woken and full again keeps its place, and may be woken again.
        if p_run is not null then
          update webhook_deliveries
             set waiting_since = coalesce(waiting_since, now_), waiting_run = p_run, woken_until = null
           where id = p_delivery_id;
        end if;
        return false;
      end if;
      update webhook_deliveries
         set in_flight_until = now_ + p_lease_ms * interval '1 millisecond',
             waiting_since = null, waiting_run = null, woken_until = null
       where id = p_delivery_id;
      return true;
    end $$`);
  await knex.raw('drop function if exists release_endpoint_lease(text, text, double precision)');
  await knex.raw(`
    create function release_endpoint_lease(p_delivery_id text, p_webhook_id text, p_wake_ms double precision)
    returns table (delivery_id text, run text) language plpgsql volatile as $$
    declare
      now_ timestamptz;
    begin
      perform 1 from webhooks where id = p_webhook_id for update;
      now_ := clock_timestamp();
      -- Out of the line too: a waiter whose run could not be woken gives its place up.
      update webhook_deliveries
         set in_flight_until = null, waiting_since = null, waiting_run = null, woken_until = null
       where id = p_delivery_id;
      return query
        with next as (
          select d.id, d.waiting_run from webhook_deliveries d
           where d.webhook_id = p_webhook_id and d.waiting_since is not null
             and (d.woken_until is null or d.woken_until <= now_)
           order by d.waiting_since limit 1),
        woken as (
          update webhook_deliveries d set woken_until = now_ + p_wake_ms * interval '1 millisecond'
            from next where d.id = next.id returning d.id, next.waiting_run)
        select woken.id, woken.waiting_run from woken;
    end $$`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop function if exists release_endpoint_lease(text, text, double precision)');
  await knex.raw('drop function if exists take_endpoint_lease(text, text, integer, double precision, text)');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('woken_until');
  });
  const previous = require('./20261127220000_endpoint_lease_functions.js');
  await previous.up(knex);
};
