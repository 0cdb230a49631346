import { z } from 'zod';
import { ObservedOutcome } from '@candor/tools';

const pathPattern = /^(\$\.)?[^.\s$][^.\s]*(\.[^.\s]+)*$/;

const PathSchema = z
  .string()
  .regex(
    pathPattern,
    'expected a dot path such as "item.status" or "$.timestamp"',
  );

const PrimitiveSchema = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
]);

const operators = ['equals', 'in', 'exists', 'matches'] as const;

const PredicateSchema = z
  .strictObject({
    path: PathSchema,
    equals: PrimitiveSchema.optional(),
    in: z.array(PrimitiveSchema).min(1).optional(),
    exists: z.boolean().optional(),
    matches: z.string().optional(),
  })
  .superRefine((predicate, context) => {
    const used = operators.filter((name) => predicate[name] !== undefined);
    if (used.length !== 1) {
      context.addIssue({
        code: 'custom',
        message: `needs exactly one of ${operators.join(', ')} (found ${used.length === 0 ? 'none' : used.join(', ')})`,
      });
    }
    if (predicate.matches !== undefined) {
      try {
        new RegExp(predicate.matches, 'u');
      } catch (error: unknown) {
        context.addIssue({
          code: 'custom',
          path: ['matches'],
          message: `is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`,
        });
      }
    }
  });

/** All predicates must hold. */
const ConditionSchema = z.array(PredicateSchema);

// `key_of`: the name of the first field of the object at the path, for harnesses that name a
// tool by its wrapper key (Cursor's `tool_call: { shellToolCall: {…} }`).
const FieldSchema = z.union([
  PathSchema,
  z.array(PathSchema).min(1),
  z.strictObject({ value: z.string() }),
  z.strictObject({ key_of: PathSchema }),
]);

const outcomeWords = Object.values(ObservedOutcome);

// The words tables used before the vocabulary moved to @candor/tools, with their replacements,
// so an old table file gets told what to write rather than only what is allowed.
const renamedWords: Readonly<Record<string, ObservedOutcome>> = {
  ok: ObservedOutcome.SUCCESS,
  '': ObservedOutcome.UNKNOWN,
};

const OutcomeWordSchema = z.enum(outcomeWords, {
  error: (issue) => {
    const renamed =
      typeof issue.input === 'string' &&
      Object.hasOwn(renamedWords, issue.input)
        ? renamedWords[issue.input]
        : undefined;
    const expected = `expected ${outcomeWords.map((word) => `"${word}"`).join(', ')}`;
    return renamed === undefined
      ? expected
      : `${expected}; "${String(issue.input)}" is the old word for "${renamed}"`;
  },
});

const StatusSchema = z.strictObject({
  // `key_of`: the vendor word is the name of the object's first field (a one-key union such
  // as Cursor's `result: { failure: {…} }`).
  from: z
    .array(
      z.union([
        z.strictObject({
          path: PathSchema,
          word: z.string().min(1).optional(),
        }),
        z.strictObject({ key_of: PathSchema }),
      ]),
    )
    .min(1),
  map: z
    .string()
    .regex(/^[a-z0-9_]+_map$/, 'expected the name of a top-level "*_map"'),
  absent: OutcomeWordSchema.optional(),
});

const ruleKinds = ['start', 'outcome', 'denial'] as const;

const RuleSchema = z
  .strictObject({
    kind: z.enum(ruleKinds, {
      error: `expected one of ${ruleKinds.join(', ')}`,
    }),
    when: ConditionSchema.optional(),
    each: PathSchema.optional(),
    each_when: ConditionSchema.optional(),
    id: FieldSchema,
    tool: FieldSchema.optional(),
    args: FieldSchema.optional(),
    status: StatusSchema.optional(),
    result: FieldSchema.optional(),
    exit_code: PathSchema.optional(),
    escalate: z
      .array(
        z.strictObject({
          when: ConditionSchema.min(1),
          reason: z.string().min(1),
        }),
      )
      .optional(),
    reason: FieldSchema.optional(),
    started_at: FieldSchema.optional(),
    ended_at: FieldSchema.optional(),
  })
  .superRefine((rule, context) => {
    const onlyOn = (
      field: keyof typeof rule,
      kind: (typeof ruleKinds)[number],
    ) => {
      if (rule[field] !== undefined && rule.kind !== kind) {
        context.addIssue({
          code: 'custom',
          path: [field],
          message: `is only allowed on "${kind}" rules`,
        });
      }
    };
    onlyOn('status', 'outcome');
    onlyOn('exit_code', 'outcome');
    onlyOn('escalate', 'outcome');
    onlyOn('reason', 'denial');
    if (rule.kind === 'outcome' && rule.status === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['status'],
        message: 'is required on "outcome" rules',
      });
    }
    if (rule.each_when !== undefined && rule.each === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['each_when'],
        message: 'needs "each"',
      });
    }
  });

const knownKeys = new Set([
  '$schema',
  'harness',
  'description',
  'source',
  'detect',
  'flush',
  'hold_until_flush',
  'final_outcomes',
  'rules',
]);

/**
 * The zod schema of a harness table file. Every top-level key ending in `_map` is a named
 * translation table from vendor words to outcomes; any other unknown key is rejected so a typo
 * cannot silently disable a rule.
 */
export const TraceTableSchema = z
  .looseObject({
    $schema: z.string().optional(),
    harness: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/, 'expected a kebab-case harness name'),
    description: z.string().optional(),
    source: z.string().optional(),
    detect: z.array(ConditionSchema.min(1)).min(1),
    flush: z.array(ConditionSchema.min(1)).optional(),
    hold_until_flush: z.boolean().optional(),
    // With hold_until_flush: vendor outcomes no later line can change, so a call with one is
    // emitted on its own outcome line instead of being held (claude-code: a success is never
    // named by a later denial).
    final_outcomes: z.array(OutcomeWordSchema).min(1).optional(),
    rules: z.array(RuleSchema).min(1),
  })
  .superRefine((table, context) => {
    if (table.final_outcomes !== undefined && table.hold_until_flush !== true) {
      context.addIssue({
        code: 'custom',
        path: ['final_outcomes'],
        message: 'only means something with "hold_until_flush": true',
      });
    }
    if (table.hold_until_flush === true && table.flush === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['hold_until_flush'],
        message: 'needs "flush" lines to release the held calls',
      });
    }
    for (const [key, value] of Object.entries(table)) {
      if (knownKeys.has(key)) continue;
      if (!key.endsWith('_map')) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message:
            'is not a known field (translation tables must end in "_map")',
        });
        continue;
      }
      const map = TranslationMapSchema.safeParse(value);
      for (const issue of map.success ? [] : map.error.issues) {
        context.addIssue({
          code: 'custom',
          path: [key, ...issue.path],
          message: issue.message,
        });
      }
    }
    table.rules.forEach((rule, index) => {
      if (rule.status === undefined) return;
      const name = rule.status.map;
      if (!Object.hasOwn(table, name)) {
        context.addIssue({
          code: 'custom',
          path: ['rules', index, 'status', 'map'],
          message: `names "${name}", but the file defines no top-level "${name}"`,
        });
      }
    });
  });

/** A translation table: vendor word (or `"*"` for any other word) to outcome. */
export const TranslationMapSchema = z.record(z.string(), OutcomeWordSchema);

/** A table file as written (after validation, before compilation). */
export type TraceTableDefinition = z.infer<typeof TraceTableSchema>;
