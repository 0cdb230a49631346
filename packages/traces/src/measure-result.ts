/**
 * The length of a call's result, in characters. Strings count as they are; MCP-style content
 * arrays count the text of their blocks; other values count as compact JSON. Null or absent
 * results give null, which is not the same as an empty result (0).
 */
export function measureResult(result: unknown): number | null {
  if (result === undefined || result === null) return null;
  if (typeof result === 'string') return result.length;
  if (Array.isArray(result)) {
    let length = 0;
    for (const block of result as unknown[]) {
      const text =
        typeof block === 'object' && block !== null
          ? (block as { text?: unknown }).text
          : undefined;
      length +=
        typeof text === 'string' ? text.length : (measureResult(block) ?? 0);
    }
    return length;
  }
  return JSON.stringify(result).length;
}
