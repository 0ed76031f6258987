/** A dispute's own routes (docs/concepts.md, "Disputes"), of the payment's latest dispute and of a milestone's. */
import { paymentView } from './payment.view';
import type { PaymentsService } from './payments.service';
import { callOf } from '../platform/http/context';
import type { Routes } from '../platform/http/registry';
import { DisputeEvidenceRequest, DisputeOfferRequest, DisputePartyRequest, Payment } from '../platform/http/schemas';

// Each path written out, so that searching the code for a path finds its handler.
const DISPUTE_PATHS = {
  evidence: '/payments/:id/dispute/evidence',
  offers: '/payments/:id/dispute/offers',
  accept: '/payments/:id/dispute/offers/:offer/accept',
  decline: '/payments/:id/dispute/offers/:offer/decline',
  withdraw: '/payments/:id/dispute/withdraw',
} as const;
const MILESTONE_DISPUTE_PATHS = {
  evidence: '/payments/:id/milestones/:ms/dispute/evidence',
  offers: '/payments/:id/milestones/:ms/dispute/offers',
  accept: '/payments/:id/milestones/:ms/dispute/offers/:offer/accept',
  decline: '/payments/:id/milestones/:ms/dispute/offers/:offer/decline',
  withdraw: '/payments/:id/milestones/:ms/dispute/withdraw',
} as const satisfies { [K in keyof typeof DISPUTE_PATHS]: string };

/** Adds them to the payment routes, whose `id` and `ms` parameters they share. */
export function disputeRoutes(routes: Routes, payments: PaymentsService, tag: string): void {
  routes.param('offer', 'offer', "The offer id (of_…), as the dispute's offers show it");
  for (const [paths, of] of [
    [DISPUTE_PATHS, 'the payment'],
    [MILESTONE_DISPUTE_PATHS, 'the milestone'],
  ] as const) {
    const milestoneOf = (params: Record<string, string>) => (of === 'the milestone' ? { milestoneId: params.ms } : {});
    const common = { method: 'post' as const, tag, errors: ['invalid_transition', 'dispute_out_of_turn'] as const };
    const answer = { 200: { description: 'The updated payment', schema: Payment } };
    routes.add(
      {
        ...common,
        path: paths.evidence,
        summary: `Add evidence to ${of}'s dispute`,
        description:
          "The payer's or the recipient's; at most 20 items. The respondent's first evidence moves the dispute from awaiting_response to " +
          'under_review (its respond_by no longer decides it). The text is personal data: kept by the service only, erased by redact.',
        body: DisputeEvidenceRequest,
        responses: answer,
        errors: [...common.errors],
      },
      async (ctx, { body }) => {
        const command = { action: 'dispute_evidence', party: body.party, text: body.text, ...milestoneOf(ctx.params) } as const;
        ctx.body = paymentView(await payments.disputeAction(callOf(ctx.state), ctx.params.id, command));
      },
    );
    routes.add(
      {
        ...common,
        path: paths.offers,
        summary: `Offer a settlement of ${of}'s dispute`,
        description:
          'refund_amount to the payer (0 ≤ refund_amount ≤ the disputed amount), the rest released; a newer offer of the same party ' +
          'supersedes its older one. Accepted by the other party, it settles as a split does, fees pro rata.',
        body: DisputeOfferRequest,
        responses: answer,
        errors: [...common.errors],
      },
      async (ctx, { body }) => {
        const command = {
          action: 'dispute_offer',
          party: body.proposed_by,
          refundAmount: body.refund_amount,
          text: body.note ?? null,
          ...milestoneOf(ctx.params),
        } as const;
        ctx.body = paymentView(await payments.disputeAction(callOf(ctx.state), ctx.params.id, command));
      },
    );
    for (const answerAction of ['accept', 'decline'] as const) {
      routes.add(
        {
          ...common,
          path: paths[answerAction],
          summary: `${answerAction === 'accept' ? 'Accept' : 'Decline'} an offer in ${of}'s dispute`,
          description:
            answerAction === 'accept'
              ? 'By the party the offer was made to: the dispute is resolved by agreement, the money moved as the offer says.'
              : 'By the party the offer was made to: the offer is declined, the dispute goes on.',
          body: DisputePartyRequest,
          responses: answer,
          errors: [...common.errors],
        },
        async (ctx, { body }) => {
          const command = {
            action: `dispute_${answerAction}`,
            party: body.party,
            offerId: ctx.params.offer,
            ...milestoneOf(ctx.params),
          } as const;
          ctx.body = paymentView(await payments.disputeAction(callOf(ctx.state), ctx.params.id, command));
        },
      );
    }
    routes.add(
      {
        ...common,
        path: paths.withdraw,
        summary: `Withdraw ${of}'s dispute`,
        description: 'By the party that opened it: the money returns to the status it had before the dispute.',
        body: DisputePartyRequest,
        responses: answer,
        errors: [...common.errors],
      },
      async (ctx, { body }) => {
        const command = { action: 'dispute_withdraw', party: body.party, ...milestoneOf(ctx.params) } as const;
        ctx.body = paymentView(await payments.disputeAction(callOf(ctx.state), ctx.params.id, command));
      },
    );
  }
}
