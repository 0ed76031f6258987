/**
 * `npm run docs:state-machine`: redraw, in docs/concepts.md, the diagram from the transition table
 * and the table of the rule that gives a payment with milestones its status.
 */
import fs from 'node:fs';
import path from 'node:path';
import { paymentStatusRulesTable, stateMachineMermaid } from '../src/payments/stateMachineDiagram.rules';

export const CONCEPTS = path.resolve(__dirname, '../docs/concepts.md');

/** `text` with what stands between the `name` markers replaced by `content`. */
function between(text: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${CONCEPTS} lacks the ${start} … ${end} markers`);
  return `${text.slice(0, i + start.length)}\n\n${content}\n\n${text.slice(j)}`;
}

export function withDiagram(text: string): string {
  return between(text, 'state-machine', `\`\`\`mermaid\n${stateMachineMermaid()}\n\`\`\``);
}

export function withStatusRules(text: string): string {
  return between(text, 'payment-status-rules', paymentStatusRulesTable());
}

if (require.main === module) {
  fs.writeFileSync(CONCEPTS, withStatusRules(withDiagram(fs.readFileSync(CONCEPTS, 'utf8'))));
  console.log(`state machine and payment status rules redrawn in ${CONCEPTS}`);
}
