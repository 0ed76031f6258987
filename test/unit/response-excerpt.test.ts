/**
 * What the delivery log keeps of a receiver's answer (src/webhooks/responseExcerpt.ts): the first 1 KB, cut
 * on a character, as text PostgreSQL can store. The stack tests' receivers are on loopback, whose
 * answers are never kept (test/loopback-reach.test.ts), so the cut is proved here.
 */
import { describe, expect, it } from 'vitest';
import { EXCERPT_BYTES, readExcerpt } from '../../src/webhooks/responseExcerpt';

/** A body streamed in the given pieces, and how many of them were read. */
function body(pieces: string[]): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === pieces.length) return controller.close();
      controller.enqueue(new TextEncoder().encode(pieces[pulled++]));
    },
  });
  return { stream, pulled: () => pulled };
}

describe('readExcerpt', () => {
  it('keeps exactly the first 1 KB of a long answer, a character cut in two shown as U+FFFD', async () => {
    const long = 'x'.repeat(700) + 'é'.repeat(700); // 2,100 bytes of UTF-8
    // 700 one-byte and 162 two-byte characters: exactly the first 1,024 bytes.
    expect(EXCERPT_BYTES).toBe(1024);
    expect(await readExcerpt(body([long]).stream)).toBe(long.slice(0, 862));
    // Cut in the middle of a two-byte character: the half left is decoded as the replacement character.
    expect(await readExcerpt(body(['x'.repeat(1023) + 'é']).stream)).toBe('x'.repeat(1023) + '\uFFFD');
  });

  it('reads no further than 1 KB of an answer sent in pieces', async () => {
    const answer = body(Array.from({ length: 10 }, () => 'y'.repeat(600)));
    expect(await readExcerpt(answer.stream)).toBe('y'.repeat(1024));
    expect(answer.pulled()).toBe(2);
  });

  it('keeps a short answer whole, drops NUL characters, and has nothing for no body', async () => {
    expect(await readExcerpt(body(['{"error":"nope"}']).stream)).toBe('{"error":"nope"}');
    expect(await readExcerpt(body(['a\u0000b']).stream)).toBe('ab');
    expect(await readExcerpt(null)).toBeNull();
  });
});
