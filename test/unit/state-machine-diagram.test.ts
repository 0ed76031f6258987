/** docs/concepts.md draws the state machine the transition table defines, and nothing else. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONCEPTS, withDiagram } from '../../scripts/docs-state-machine';
import { TRANSITIONS } from '../../src/domain/payment';

describe('docs/concepts.md', () => {
  const text = fs.readFileSync(CONCEPTS, 'utf8');
  it('holds the diagram a fresh drawing from the transition table gives (npm run docs:state-machine)', () => {
    expect(text).toBe(withDiagram(text));
  });
  it('draws every transition of the table', () => {
    for (const t of TRANSITIONS) for (const from of t.from) expect(text).toContain(`${from} --> ${t.to}`);
  });
});
