/**
 * An upstream answer's body as UTF-8, or undefined once it passes `limit` bytes: the rest is not
 * read and the body is destroyed, so an endless answer costs at most `limit` bytes of memory.
 */
export async function readBodyAtMost(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  limit: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return textOfChunks(chunks, size);
}

/** The chunks of a body, `size` bytes together, as UTF-8 text. */
export function textOfChunks(chunks: readonly Buffer[], size: number): string {
  // An answer that came in one read needs no copy into a new buffer.
  return chunks.length === 1
    ? (chunks[0] as Buffer).toString('utf8')
    : Buffer.concat(chunks, size).toString('utf8');
}
