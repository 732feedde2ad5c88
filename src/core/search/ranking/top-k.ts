/** The best-scored documents of a score array, by a min-heap. */

/** A scored document. */
export interface Hit {
  id: number;
  score: number;
}

/** Pushes `item` onto a min-heap ordered by `weaker` (the weakest on top). */
export function heapPush<T>(heap: T[], item: T, weaker: (a: T, b: T) => boolean): void {
  heap.push(item);
  for (let i = heap.length - 1; i > 0;) {
    const p = (i - 1) >> 1;
    if (!weaker(heap[i]!, heap[p]!)) break;
    [heap[i], heap[p]] = [heap[p]!, heap[i]!];
    i = p;
  }
}

/** Replaces the top (weakest) of a min-heap with `item` and restores the order. */
export function heapReplaceTop<T>(heap: T[], item: T, weaker: (a: T, b: T) => boolean): void {
  heap[0] = item;
  for (let i = 0; ;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && weaker(heap[l]!, heap[m]!)) m = l;
    if (r < heap.length && weaker(heap[r]!, heap[m]!)) m = r;
    if (m === i) return;
    [heap[i], heap[m]] = [heap[m]!, heap[i]!];
    i = m;
  }
}

export /** The `k`-th best score among `ids` that pass `accept` (−∞ when fewer than `k` pass). */
function kthScore(scores: Float64Array, ids: ArrayLike<number>, k: number, accept?: (id: number) => boolean): number {
  const best = topK(scores, ids, k, accept);
  return best.length < k ? Number.NEGATIVE_INFINITY : best.at(-1)!.score;
}

export /** The `k` best-scored of `touched` that pass `accept`, best first (ties: lower id first), via a min-heap. */
function topK(scores: Float64Array, touched: ArrayLike<number>, k: number, accept?: (id: number) => boolean): Hit[] {
  const heap: number[] = []; // ids; heap[0] is the weakest kept
  const weaker = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  for (let i = 0; i < touched.length; i++) {
    const id = touched[i]!;
    if (heap.length === k && !weaker(heap[0]!, id)) continue;
    if (accept && !accept(id)) continue;
    if (heap.length < k) heapPush(heap, id, weaker);
    else heapReplaceTop(heap, id, weaker);
  }
  return heap.map((id) => ({ id, score: scores[id]! })).sort((a, b) => b.score - a.score || a.id - b.id);
}
