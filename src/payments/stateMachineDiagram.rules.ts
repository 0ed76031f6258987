/** The payment state machine drawn as a diagram for the docs, and the rule that gives a payment with milestones its status. */
import { TERMINAL_STATUSES } from './paymentTypes.rules';
import { INITIAL_STATUS, TRANSITIONS } from './payment.rules';
import { PAYMENT_STATUS_RULES } from './milestones.rules';

/** The state machine as a Mermaid diagram, drawn from the transition table (docs/concepts.md). */
export function stateMachineMermaid(): string {
  const lines = ['stateDiagram-v2', `  [*] --> ${INITIAL_STATUS}: create`];
  for (const t of TRANSITIONS) {
    const label =
      t.action === 'resolve'
        ? `resolve (${t.resolution})`
        : t.action === 'dispute_accept'
          ? `offer accepted (${t.resolution})`
          : t.action === 'dispute_default'
            ? `respond_by passed (timer, ${t.resolution})`
            : t.action === 'dispute_withdraw'
              ? 'dispute withdrawn (back where it was)'
              : t.action === 'deadline'
                ? 'deposit deadline (timer)'
                : t.action === 'auto_release'
                  ? 'auto-release (timer)'
                  : t.partial
                    ? `${t.action} (part of what is held)`
                    : t.action;
    for (const from of t.from) lines.push(`  ${from} --> ${t.to}: ${label}`);
  }
  for (const s of TERMINAL_STATUSES) lines.push(`  ${s} --> [*]`);
  return lines.join('\n');
}

/**
 * The payment's status from its milestones' as a Markdown table, one row per rule of
 * `PAYMENT_STATUS_RULES` in its order (docs/concepts.md). Columns are padded as Prettier pads them,
 * so that formatting the page never makes it differ from a fresh rendering.
 */
export function paymentStatusRulesTable(): string {
  // A `|` in a cell would end it: escaped, as Markdown tables need.
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const rows = [['status', 'when'], ...PAYMENT_STATUS_RULES.map((r) => [`\`${r.status}\``, cell(r.when)])];
  const widths = [0, 1].map((i) => Math.max(3, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const [header, ...body] = rows;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
