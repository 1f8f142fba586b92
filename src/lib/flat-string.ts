/**
 * Makes V8 flatten a string built by concatenation, in place, and returns it.
 *
 * `a + b` makes a rope (a 32-byte ConsString node per concatenation, keeping
 * every piece alive); V8 copies it into one flat string only when something
 * reads its characters, and then keeps only that copy. A string kept for a
 * long time (a held stream's response head, the text it generated so far)
 * costs its length once flat, against about 50 bytes a piece as a rope.
 * Measuring the UTF-8 length reads every character (Node's C++ side flattens
 * the string first), so no V8 internals are needed; the cost is one copy.
 */
export function flattenString(value: string): string {
  Buffer.byteLength(value);
  return value;
}
