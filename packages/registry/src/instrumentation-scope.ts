import { createRequire } from 'node:module';

function readVersion(): string | undefined {
  try {
    // The same relative path holds from src/ and dist/, and package.json is always published.
    const load = createRequire(import.meta.url);
    const manifest: unknown = load('../package.json');
    const version =
      typeof manifest === 'object' && manifest !== null
        ? (manifest as { version?: unknown }).version
        : undefined;
    return typeof version === 'string' ? version : undefined;
  } catch {
    // A bundle without the manifest still gets telemetry, just without a scope version.
    return undefined;
  }
}

/** The OpenTelemetry instrumentation scope this package reports under. */
export const instrumentationScope: {
  readonly name: string;
  readonly version: string | undefined;
} = Object.freeze({ name: '@candor/registry', version: readVersion() });
