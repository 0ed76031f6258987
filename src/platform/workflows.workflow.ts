/** The workflows, as the worker's bundle and the clients import them. */
export * from '../payments/payment.workflow';
export * from '../payments/payment.messages';
export * from '../webhooks/webhookDelivery.workflow';
export * from '../webhooks/deliverySeries.workflow';
export * from '../audit/treeHead.workflow';
export * from '../ledger/ledgerVerify.workflow';
export * from '../payouts/payout.workflow';
export * from '../payouts/payoutCreation.workflow';
export * from '../payouts/bankInbox.workflow';
export * from '../payouts/bankReturn.workflow';
export * from '../payouts/simulatedTransfer.workflow';
export * from '../reconciliation/reconciliation.workflow';
export * from '../recipients/recipientFunds.workflow';
