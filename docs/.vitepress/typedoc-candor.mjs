// @ts-check
// Candor's TypeDoc plugin (a plain .mjs because TypeDoc imports plugins without a TypeScript
// loader). Three things the stock options do not do:
//   1. "Defined in" links point at the repository's host: CANDOR_SOURCE_URL (a repository URL,
//      default: `repository.url` of the root package.json) at CANDOR_SOURCE_REVISION (default
//      `main`).
//   2. A default value that names a module-private binding (`options = noOptions`) is not shown:
//      the name means nothing to a reader and is not part of the API. The parameter stays
//      optional; literal defaults (`= 0`, `= {}`) and exported names stay.
//   3. The API index lists every export of every entry point, each with its summary's first
//      sentence, instead of a bare list of module names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Application,
  Converter,
  ReflectionFlag,
  ReflectionKind,
} from 'typedoc';
import { MarkdownPageEvent } from 'typedoc-plugin-markdown';

const root = join(import.meta.dirname, '..', '..');

/**
 * The repository's web URL from a package.json `repository` field (`git+https://….git`).
 *
 * @param {unknown} repository the field's value
 * @returns {string | undefined} an https URL without `.git`
 */
export function repositoryWebUrl(repository) {
  const url =
    typeof repository === 'string'
      ? repository
      : typeof repository === 'object' && repository !== null
        ? /** @type {{ url?: unknown }} */ (repository).url
        : undefined;
  if (typeof url !== 'string') return undefined;
  return url
    .replace(/^git\+/, '')
    .replace(/^git:\/\//, 'https://')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
}

/**
 * The `sourceLinkTemplate` for a repository URL and revision; `{path}` is relative to
 * `packages/` (TypeDoc's base path, the common folder of the entry points).
 *
 * @param {NodeJS.ProcessEnv} env
 * @returns {string}
 */
export function sourceLinkTemplate(env) {
  const manifest = /** @type {{ repository?: unknown }} */ (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  );
  const base = (
    env['CANDOR_SOURCE_URL'] ?? repositoryWebUrl(manifest.repository)
  )?.replace(/\/+$/, '');
  if (base === undefined || base === '') {
    throw new TypeError(
      'CANDOR_SOURCE_URL is not set and the root package.json has no repository.url',
    );
  }
  const revision = env['CANDOR_SOURCE_REVISION'] ?? 'main';
  return `${base}/blob/${revision}/packages/{path}#L{line}`;
}

/** @param {string} value */
function isLiteral(value) {
  return (
    /^(?:true|false|null|undefined|\{\s*\}|\[\s*\]|-?[\d_.]+(?:e-?\d+)?)$/i.test(
      value,
    ) || /^(['"`]).*\1$/s.test(value)
  );
}

/**
 * The first sentence of a summary, on one line.
 *
 * @param {readonly import('typedoc').CommentDisplayPart[] | undefined} parts
 * @returns {string}
 */
export function firstSentence(parts) {
  // `{@link classifyError}` reads as the code name it links to, not as the tag.
  const text = (parts ?? [])
    .map((part) =>
      part.kind === 'inline-tag' ? `\`${part.text}\`` : part.text,
    )
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  // A period, colon-free: ends at ". " followed by a capital or a backtick, or at the end.
  const end = /[.!?](?=\s+[A-Z`(])/.exec(text);
  return end === null ? text : text.slice(0, end.index + 1);
}

/**
 * The summary a reflection's page opens with: its own comment, or its first signature's.
 *
 * @param {import('typedoc').DeclarationReflection | import('typedoc').ReferenceReflection} reflection
 * @returns {string}
 */
function summaryOf(reflection) {
  // A re-export (`export { ToolError } from '@candor/errors'`) reads its target's summary.
  if (reflection.isReference()) {
    const target = reflection.tryGetTargetReflectionDeep();
    return target?.isDeclaration()
      ? summaryOf(target)
      : `Re-exported from ${reflection.getTargetReflection().parent?.name ?? 'another module'}.`;
  }
  const comment =
    reflection.comment ??
    reflection.signatures?.find((signature) => signature.comment)?.comment ??
    reflection.getSignature?.comment;
  return firstSentence(comment?.summary);
}

/** @param {string} text */
function escapeMarkdown(text) {
  return text.replace(/([\\[\]*_<>|])/g, '\\$1');
}

const kindOrder = [
  ReflectionKind.Class,
  ReflectionKind.Function,
  ReflectionKind.Variable,
  ReflectionKind.Interface,
  ReflectionKind.TypeAlias,
  ReflectionKind.Enum,
  ReflectionKind.Namespace,
];

/** @param {Application} app */
export function load(app) {
  app.on(Application.EVENT_BOOTSTRAP_END, () => {
    if (!app.options.isSet('sourceLinkTemplate')) {
      app.options.setValue(
        'sourceLinkTemplate',
        sourceLinkTemplate(process.env),
      );
    }
  });

  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    const project = context.project;
    const exported = new Set(
      project
        .getReflectionsByKind(ReflectionKind.SomeExport)
        .map((reflection) => reflection.name),
    );
    for (const reflection of Object.values(project.reflections)) {
      const value = /** @type {{ defaultValue?: string }} */ (reflection)
        .defaultValue;
      if (value === undefined || isLiteral(value)) continue;
      const head = /^[A-Za-z_$][\w$]*/.exec(value)?.[0];
      if (head !== undefined && exported.has(head)) continue;
      /** @type {{ defaultValue?: string }} */ (reflection).defaultValue =
        undefined;
      if (reflection.kindOf(ReflectionKind.Parameter)) {
        reflection.setFlag(ReflectionFlag.Optional, true);
      }
    }
  });

  app.renderer.on(MarkdownPageEvent.END, (page) => {
    if (!page.model.isProject()) return;
    const project = page.model;
    const router = app.renderer.router;
    if (router === undefined) return;
    const lines = [
      '# API reference',
      '',
      'Every public entry point and each of its exports, with the first sentence of its documentation.',
    ];
    const modules = (project.children ?? [])
      .filter((child) => child.kindOf(ReflectionKind.Module))
      .sort((a, b) => a.name.localeCompare(b.name));
    for (const module of modules) {
      lines.push(
        '',
        `## [${escapeMarkdown(module.name)}](${router.relativeUrl(project, module)})`,
        '',
        summaryOf(module),
        '',
      );
      const exports = [...(module.children ?? [])].sort(
        (a, b) =>
          kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind) ||
          a.name.localeCompare(b.name),
      );
      for (const child of exports) {
        const target = child.isReference()
          ? (child.tryGetTargetReflectionDeep() ?? child)
          : child;
        const kind = child.isReference()
          ? `re-export of ${ReflectionKind.singularString(target.kind).toLowerCase()}`
          : ReflectionKind.singularString(child.kind).toLowerCase();
        lines.push(
          `- [${escapeMarkdown(child.name)}](${router.relativeUrl(project, router.hasUrl(target) ? target : child)}) (${kind}): ${summaryOf(child)}`,
        );
      }
    }
    page.contents = `${lines.join('\n')}\n`;
  });
}
