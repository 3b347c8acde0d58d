/**
 * A streamed reply assembled from pieces that may overlap or arrive late: the text so far from
 * the server (start 0) and deltas that say where they start. `start > 0` means the beginning is
 * still missing.
 */
export interface StreamPiece {
  messageId: string;
  /** offset (UTF-16 units) of `text` in the whole reply */
  start: number;
  text: string;
}

export function joinStream(current: StreamPiece | null, piece: StreamPiece): StreamPiece {
  if (!current || current.messageId !== piece.messageId) return piece;
  const end = current.start + current.text.length;
  const pieceEnd = piece.start + piece.text.length;
  if (piece.start <= current.start && pieceEnd >= end) return piece; // covers all we had
  if (piece.start <= end && pieceEnd > end) {
    // Continues (or overlaps the end of) what we have.
    const head = piece.start < current.start ? piece.text.slice(0, current.start - piece.start) : '';
    return { messageId: piece.messageId, start: Math.min(current.start, piece.start), text: head + current.text + piece.text.slice(end - piece.start) };
  }
  if (pieceEnd >= current.start && piece.start < current.start) {
    // Fills in the beginning.
    return { messageId: piece.messageId, start: piece.start, text: piece.text.slice(0, current.start - piece.start) + current.text };
  }
  if (pieceEnd <= end && piece.start >= current.start) return current; // already had it
  // A gap after what we have: keep the newer piece alone until the server fills it.
  return piece.start > end ? { ...piece } : current;
}
