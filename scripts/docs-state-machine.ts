/** `npm run docs:state-machine`: redraw the diagram in docs/concepts.md from the transition table. */
import fs from 'node:fs';
import path from 'node:path';
import { stateMachineMermaid } from '../src/domain/stateMachineDiagram';

export const CONCEPTS = path.resolve(__dirname, '../docs/concepts.md');
const START = '<!-- state-machine:start -->';
const END = '<!-- state-machine:end -->';

export function withDiagram(text: string): string {
  const i = text.indexOf(START);
  const j = text.indexOf(END);
  if (i < 0 || j < i) throw new Error(`${CONCEPTS} lacks the ${START} … ${END} markers`);
  return `${text.slice(0, i + START.length)}\n\n\`\`\`mermaid\n${stateMachineMermaid()}\n\`\`\`\n\n${text.slice(j)}`;
}

if (require.main === module) {
  fs.writeFileSync(CONCEPTS, withDiagram(fs.readFileSync(CONCEPTS, 'utf8')));
  console.log(`state machine redrawn in ${CONCEPTS}`);
}
