// @ts-check
/**
 * A delivery whose endpoint is already full joins the endpoint's line when its transition's
 * publication plans it (docs/webhooks.md, "No tenant slows another"; src/webhooks/endpointLeases.repository.ts), so
 * its series begins by waiting for its turn instead of with an activity that would send nothing.
 * Like `take_endpoint_lease` without the take: the other deliveries' unexpired leases are counted,
 * first without a lock (an endpoint with room answers at once), then, when full, again under the
 * configuration's row lock, and only a full endpoint puts the delivery in line.
 */
Object.defineProperty(exports, '__esModule', { value: true });

/** @param {import('knex').Knex} knex */
exports.up = async function up(knex) {
  await knex.raw(`
    create function join_full_endpoint_line(p_delivery_id text, p_webhook_id text, p_limit integer, p_run text)
    returns boolean language plpgsql volatile as $$
    declare
      now_ timestamptz;
      busy bigint;
    begin
      -- Room at the endpoint, the common case: answered without the lock, and the attempt takes its lease.
      select count(*) into busy from webhook_deliveries
       where webhook_id = p_webhook_id and id <> p_delivery_id and in_flight_until > clock_timestamp();
      if busy < p_limit then
        return false;
      end if;
      -- Full: counted again under the lock, so that a release either sees the delivery in line or
      -- the delivery sees the lease free (the release's own order, src/webhooks/endpointLeases.repository.ts).
      perform 1 from webhooks where id = p_webhook_id for update;
      now_ := clock_timestamp();
      select count(*) into busy from webhook_deliveries
       where webhook_id = p_webhook_id and id <> p_delivery_id and in_flight_until > now_;
      if busy < p_limit then
        return false;
      end if;
      -- In line once: a retried publication keeps the place the first one took.
      update webhook_deliveries
         set waiting_since = coalesce(waiting_since, now_), waiting_run = p_run, woken_until = null
       where id = p_delivery_id and in_flight_until is null;
      return found;
    end $$`);
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.raw('drop function if exists join_full_endpoint_line(text, text, integer, text)');
};
