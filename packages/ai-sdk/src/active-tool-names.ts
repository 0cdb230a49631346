import { type ToolExecutor } from '@candor/tools';

/**
 * The names in `tools` that the model may be offered now: every one except a registry tool
 * whose circuit is open (tools that are not the registry's stay). Candor's own `Agent` hides an
 * open circuit the same way, so a model does not spend a step on a call that cannot run. For
 * `activeTools` in `generateText`, `streamText` or a `prepareStep`; {@link hideOpenCircuits}
 * returns that `prepareStep`.
 *
 * @example
 * ```ts
 * const tools = toAISDKTools(registry);
 * await generateText({ model, tools, activeTools: activeToolNames(registry, tools), prompt });
 * ```
 */
export function activeToolNames<TName extends string>(
  registry: ToolExecutor,
  tools: Readonly<Record<TName, unknown>>,
): TName[] {
  const closed = new Set(
    registry.specs({ hideOpenCircuits: true }).map((spec) => spec.name),
  );
  const open = new Set(
    registry
      .specs()
      .map((spec) => spec.name)
      .filter((name) => !closed.has(name)),
  );
  return (Object.keys(tools) as TName[]).filter((name) => !open.has(name));
}

/**
 * A `prepareStep` that sets each step's `activeTools` to {@link activeToolNames}: a tool whose
 * circuit opened during the run is left out of the next request, and back once it closes.
 *
 * @example
 * ```ts
 * const tools = toAISDKTools(registry);
 * await generateText({
 *   model,
 *   tools,
 *   prepareStep: hideOpenCircuits(registry, tools),
 *   stopWhen: stepCountIs(5),
 *   prompt,
 * });
 * ```
 */
export function hideOpenCircuits<TName extends string>(
  registry: ToolExecutor,
  tools: Readonly<Record<TName, unknown>>,
): () => { activeTools: TName[] } {
  return () => ({ activeTools: activeToolNames(registry, tools) });
}
