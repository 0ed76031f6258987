/** The payment state machine drawn as a diagram for the docs. */
import { INITIAL_STATUS, TERMINAL_STATUSES, TRANSITIONS } from './payment';

/** The state machine as a Mermaid diagram, drawn from the transition table (docs/concepts.md). */
export function stateMachineMermaid(): string {
  const lines = ['stateDiagram-v2', `  [*] --> ${INITIAL_STATUS}: create`];
  for (const t of TRANSITIONS) {
    const label =
      t.action === 'resolve'
        ? `resolve (${t.resolution})`
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
