/**
 * The failure types workflows and activities raise (Temporal's `ApplicationFailure.type`), in one
 * place: the code that raises one, the retry policies that stop on one and the services that map
 * one to an answer read these names.
 */

/** A refused transition; `details[0]` is the current status, `details[1]` the actions allowed now. */
export const INVALID_TRANSITION = 'InvalidTransition';
/** An amount the payment cannot pay (more than held, say); `details[0]` is the field. */
export const INVALID_AMOUNT = 'InvalidAmount';
/** A milestone action naming a milestone the payment does not have. */
export const UNKNOWN_MILESTONE = 'UnknownMilestone';
/** A dispute's action out of turn; `details[0]` is the dispute's status, `details[1]` its id. */
export const DISPUTE_OUT_OF_TURN = 'DisputeOutOfTurn';
/** An offer the dispute does not have. */
export const UNKNOWN_OFFER = 'UnknownOffer';
/** A dispute resolved without a resolution; `details[0]` is the current status. */
export const RESOLUTION_REQUIRED = 'ResolutionRequired';
/** A test clock moved on a live payment. */
export const LIVE_PAYMENT = 'LivePayment';
/** A message the workflow cannot take: a test clock's seconds not a positive integer, a milestone named by a payment's action or missing from a milestone's. */
export const INVALID_ARGUMENT = 'InvalidArgument';

/** A payout's action its status does not allow (a cancel once it left `pending`); `details[0]` is the payout's status. */
export const INVALID_PAYOUT_TRANSITION = 'InvalidPayoutTransition';
/** A payout step its row refuses: the workflow and the read model disagree, which no retry mends. */
export const PAYOUT_STEP_REFUSED = 'PayoutStepRefused';

/** CUSTODY_ACCOUNT_NAME, _IBAN or _BIC unset: no live payout file is written until an operator sets them. */
export const CUSTODY_ACCOUNT_MISSING = 'CustodyAccountMissing';

/** Data PostgreSQL refuses: the projection can never succeed. */
export const PROJECTION_REFUSED = 'ProjectionRefused';
/** The custody trail does not match its last signed head: no head is signed. */
export const AUDIT_LOG_INCONSISTENT = 'AuditLogInconsistent';

/** A webhook URL the rules forbid at delivery time: one recorded attempt, no retries. */
export const WEBHOOK_URL_REFUSED = 'WebhookUrlRefused';
/** No such delivery. */
export const DELIVERY_NOT_FOUND = 'DeliveryNotFound';
/** The receiver answered 410 Gone: the configuration is disabled. */
export const WEBHOOK_GONE = 'WebhookGone';
/** Every delivery to the configuration failed for WEBHOOK_DISABLE_AFTER: it is disabled. */
export const WEBHOOK_DISABLED = 'WebhookDisabled';
/** One failed attempt; the retry policy schedules the next. */
export const WEBHOOK_DELIVERY_FAILED = 'WebhookDeliveryFailed';
/** The endpoint had WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT attempts in flight: nothing sent, retried shortly. */
export const WEBHOOK_ENDPOINT_BUSY = 'WebhookEndpointBusy';
/** A series that ended without a success. */
export const WEBHOOK_DELIVERY_EXHAUSTED = 'WebhookDeliveryExhausted';

/** Failures no retry can cure: a delivery series stops at once on these. */
export const FINAL_DELIVERY_FAILURES = [WEBHOOK_URL_REFUSED, DELIVERY_NOT_FOUND, WEBHOOK_GONE, WEBHOOK_DISABLED];
