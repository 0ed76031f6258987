/**
 * What the delivery log keeps of a receiver's answer (docs/webhooks.md): its first 1 KB, never more
 * read. A loopback receiver's answer is not kept at all (the activity cancels it unread).
 */
export const EXCERPT_BYTES = 1024;

/** The first 1 KB of a receiver's answer, as text PostgreSQL can store; the rest is not read. */
export async function readExcerpt(body: ReadableStream<Uint8Array> | null): Promise<string | null> {
  if (!body) return null;
  const reader = body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
      size += value.byteLength;
    }
  } catch {
    // An answer cut short still has the part read.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const text = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
  return text.replace(/\u0000/g, '').toWellFormed();
}
