// @ts-check
/**
 * An endpoint's lease taken and given back in one statement each (docs/webhooks.md, "No tenant
 * slows another"; src/webhooks/endpointLeases.repository.ts): the configuration's row is locked, then the leases and
 * the line are read and written, inside one function, so the lock is held for the function's
 * duration and not across client round trips. Under READ COMMITTED each statement of a volatile
 * PL/pgSQL function takes a fresh snapshot: what is read after the lock includes what the
 * configuration's previous holder of the lock wrote.
 *
 * The counts are served by the partial indexes `webhook_deliveries_in_flight` and
 * `webhook_deliveries_waiting` (20261127120000, 20261127130000).
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.raw(`
    create function take_endpoint_lease(p_delivery_id text, p_webhook_id text, p_limit integer, p_lease_ms double precision, p_run text)
    returns boolean language plpgsql volatile as $$
    declare
      now_ timestamptz;
      handed boolean;
      busy bigint;
      waiting boolean;
    begin
      perform 1 from webhooks where id = p_webhook_id for update;
      now_ := clock_timestamp();
      select exists (select 1 from webhook_deliveries where id = p_delivery_id and in_flight_until > now_),
             (select count(*) from webhook_deliveries
               where webhook_id = p_webhook_id and id <> p_delivery_id and in_flight_until > now_),
             exists (select 1 from webhook_deliveries
               where webhook_id = p_webhook_id and id <> p_delivery_id and waiting_since is not null)
        into handed, busy, waiting;
      if not (handed or (busy < p_limit and not waiting)) then
        -- In line once: a delivery woken and full again keeps its place.
        if p_run is not null then
          update webhook_deliveries set waiting_since = coalesce(waiting_since, now_), waiting_run = p_run
           where id = p_delivery_id;
        end if;
        return false;
      end if;
      update webhook_deliveries
         set in_flight_until = now_ + p_lease_ms * interval '1 millisecond', waiting_since = null, waiting_run = null
       where id = p_delivery_id;
      return true;
    end $$`);
  await knex.raw(`
    create function release_endpoint_lease(p_delivery_id text, p_webhook_id text, p_hand_ms double precision)
    returns table (delivery_id text, run text) language plpgsql volatile as $$
    declare
      until_ timestamptz;
    begin
      perform 1 from webhooks where id = p_webhook_id for update;
      update webhook_deliveries set in_flight_until = null where id = p_delivery_id;
      until_ := clock_timestamp() + p_hand_ms * interval '1 millisecond';
      return query
        with next as (
          select d.id, d.waiting_run from webhook_deliveries d
           where d.webhook_id = p_webhook_id and d.waiting_since is not null
           order by d.waiting_since limit 1),
        handed as (
          update webhook_deliveries d set waiting_since = null, waiting_run = null, in_flight_until = until_
            from next where d.id = next.id returning d.id, next.waiting_run)
        select handed.id, handed.waiting_run from handed;
    end $$`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop function if exists release_endpoint_lease(text, text, double precision)');
  await knex.raw('drop function if exists take_endpoint_lease(text, text, integer, double precision, text)');
};
