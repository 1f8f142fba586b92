/** JSON text's value, or undefined when it does not parse (the schema check that follows then refuses it). */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
