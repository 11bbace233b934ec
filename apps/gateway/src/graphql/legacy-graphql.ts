import { Logger } from '@nestjs/common';
import { toHttpError } from '@runplane/http';
import {
  execute,
  type GraphQLError,
  type GraphQLSchema,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import type { LegacyContext } from './legacy-context';
import { legacySchema } from './schema';

/** A GraphQL request body as RunPod's clients send it (`variables` is absent, null or an object). */
export interface LegacyRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** One entry of a response's `errors`: clients read `errors[0].message`. */
export interface LegacyError {
  message: string;
  path?: readonly (string | number)[];
}

/** The response body: always HTTP 200, `data` null when nothing ran (a syntax or validation error). */
export interface LegacyResponse {
  data?: Record<string, unknown> | null;
  errors?: LegacyError[];
}

/** flash retries queries whose message says "try again later", as RunPod's internal errors do. */
const INTERNAL = 'Internal server error, please try again later';

/** Introspection is off on RunPod's API and no client depends on it. */
const RULES = [...specifiedRules, NoSchemaIntrospectionCustomRule];

/**
 * Runs legacy GraphQL requests with graphql-js (parse, validate, execute) over the schema of ./schema.ts: a real
 * parser, because runpod-python writes every value into the query text (inline input objects, unquoted enums, odd
 * spacing) and runpodctl sends variables. Domain errors keep their message, as the REST routes word them; anything
 * else is logged and answered with a message that reveals nothing.
 */
export class LegacyGraphql {
  private readonly schema: GraphQLSchema = legacySchema();
  private readonly logger = new Logger('LegacyGraphql');

  constructor(private readonly root: Record<string, unknown>) {}

  async run(request: LegacyRequest, context: LegacyContext): Promise<LegacyResponse> {
    let document;
    try {
      document = parse(request.query);
    } catch (error) {
      return { data: null, errors: [this.format(error as GraphQLError)] };
    }
    const invalid = validate(this.schema, document, RULES);
    if (invalid.length > 0) return { data: null, errors: invalid.map((error) => this.format(error)) };
    const result = await execute({
      schema: this.schema,
      document,
      rootValue: this.root,
      contextValue: context,
      variableValues: request.variables ?? undefined,
      operationName: request.operationName ?? undefined,
    });
    return {
      data: (result.data as Record<string, unknown> | null | undefined) ?? null,
      ...(result.errors ? { errors: result.errors.map((error) => this.format(error)) } : {}),
    };
  }

  /** Whether the request's operation is a mutation (unparseable texts count as reads: they fail anyway). */
  isMutation(request: LegacyRequest): boolean {
    try {
      const document = parse(request.query);
      const operations = document.definitions.filter((d) => d.kind === 'OperationDefinition');
      const chosen = operations.find((op) => op.name?.value === request.operationName) ?? operations[0];
      return chosen?.operation === 'mutation';
    } catch {
      return false;
    }
  }

  private format(error: GraphQLError): LegacyError {
    const path = error.path ? { path: error.path } : {};
    const original = error.originalError;
    if (!original || original.name === 'GraphQLError') return { message: error.message, ...path };
    const view = toHttpError(original);
    if (view && view.status < 500) return { message: view.message, ...path };
    this.logger.error(original, 'GraphQL resolver failed');
    return { message: INTERNAL, ...path };
  }
}
