import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { KUBE_BUILD_HINT, KUBE_TEST_VERSIONS, kubeBinaryPaths } from '@runplane/testing';

/**
 * Runs the helm built by `npm run k8s:build` against the chart in helm/runplane: lint, and template into parsed
 * objects, for the chart's specs. The Kubernetes version is the test environment's, so the output does not depend
 * on what helm assumes by default.
 */

const exec = promisify(execFile);

export const CHART_DIR = path.resolve(__dirname, '../../helm/runplane');
export const PRODUCTION_VALUES = path.join(CHART_DIR, 'ci/production-values.yaml');
export const RELEASE = 'rp';
export const NAMESPACE = 'runplane';
export const SERVICES = ['gateway', 'job-router', 'scheduler', 'webhook-dispatcher', 'billing-aggregator'] as const;

/** A rendered object, loosely typed: the specs read the fields they assert. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered manifests of many kinds
  [field: string]: any;
}

/** Options of one helm run: values files and `--set` pairs. */
export interface HelmValues {
  files?: string[];
  set?: string[];
  /** The release namespace; {@link NAMESPACE} unless given. */
  namespace?: string;
}

function helmBinary(): string {
  const helm = kubeBinaryPaths().helm;
  if (!existsSync(helm)) throw new Error(`helm is not built (missing ${helm}). ${KUBE_BUILD_HINT}`);
  return helm;
}

function valueArgs(values: HelmValues): string[] {
  return [
    ...(values.files ?? []).flatMap((file) => ['-f', file]),
    ...(values.set ?? []).flatMap((pair) => ['--set', pair]),
  ];
}

/** Output of a helm command; a failure resolves too, with its exit code, so specs can assert the message. */
export async function helm(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await exec(helmBinary(), args, { maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (err) {
    const failure = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof failure.code !== 'number') throw err;
    return { code: failure.code, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
  }
}

export function lint(values: HelmValues = {}): Promise<{ code: number; output: string }> {
  return helm(['lint', '--strict', CHART_DIR, ...valueArgs(values)]);
}

/** `helm template` output, or its failure (exit code and message). */
export function template(values: HelmValues = {}): Promise<{ code: number; output: string }> {
  return helm([
    'template',
    RELEASE,
    CHART_DIR,
    '--namespace',
    values.namespace ?? NAMESPACE,
    '--kube-version',
    KUBE_TEST_VERSIONS.kubernetes,
    ...valueArgs(values),
  ]);
}

/** The objects `helm template` renders; throws with helm's message when it fails. */
export async function render(values: HelmValues = {}): Promise<KubeObject[]> {
  const { code, output } = await template(values);
  if (code !== 0) throw new Error(`helm template failed (exit ${code}): ${output}`);
  return parseAllDocuments(output)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

export function ofKind(objects: KubeObject[], kind: string): KubeObject[] {
  return objects.filter((object) => object.kind === kind);
}

export function named(objects: KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found)
    throw new Error(`no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}

/** The Deployment of a service. */
export function deployment(objects: KubeObject[], service: string): KubeObject {
  return named(objects, 'Deployment', `${RELEASE}-runplane-${service}`);
}

/** A container's env as name → value, or `secret:<name>/<key>` / `field:<path>` for references. */
export function envOf(container: KubeObject): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of container['env'] as { name: string; value?: string; valueFrom?: KubeObject }[]) {
    const secret = entry.valueFrom?.['secretKeyRef'] as { name: string; key: string } | undefined;
    const field = entry.valueFrom?.['fieldRef'] as { fieldPath: string } | undefined;
    env[entry.name] = secret
      ? `secret:${secret.name}/${secret.key}`
      : field
        ? `field:${field.fieldPath}`
        : (entry.value ?? '');
  }
  return env;
}

/** The env of a service's (only) container. */
export function serviceEnv(objects: KubeObject[], service: string): Record<string, string> {
  return envOf(deployment(objects, service)['spec'].template.spec.containers[0]);
}
