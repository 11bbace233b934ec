import {
  ConflictError,
  NotFoundError,
  type PublicEndpointCreateInput,
  type PublicEndpointDto,
  type PublicEndpointUpdateInput,
  type PublicModelDto,
  type PublicModelList,
  ValidationError,
} from '@runplane/contracts';
import { isUniqueViolation, type PublicEndpoint } from '@runplane/db';
import { isReservedEndpointId } from './endpoint-id';
import type { EndpointsRepository } from './endpoints.repository';
import type { PublicEndpointFields, PublicEndpointsRepository } from './public-endpoints.repository';

const asObject = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

const price = (row: PublicEndpoint): number | null =>
  row.pricePerRequest === null ? null : Number(row.pricePerRequest.toFixed(6));

/** A publication as its owner reads it. */
export function toPublicEndpointDto(row: PublicEndpoint): PublicEndpointDto {
  return {
    name: row.name,
    endpointId: row.endpointId,
    description: row.description,
    input: asObject(row.inputSchema),
    output: asObject(row.outputSchema),
    pricePerRequest: price(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A public model as every account reads it: no endpoint id, owner or configuration. */
export function toPublicModelDto(row: PublicEndpoint): PublicModelDto {
  return {
    name: row.name,
    description: row.description,
    input: asObject(row.inputSchema),
    output: asObject(row.outputSchema),
    pricePerRequest: price(row),
  };
}

function fieldsOf(input: PublicEndpointUpdateInput): Partial<PublicEndpointFields> {
  return {
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(input.input === undefined ? {} : { inputSchema: input.input }),
    ...(input.output === undefined ? {} : { outputSchema: input.output }),
    ...(input.pricePerRequest === undefined
      ? {}
      : { pricePerRequest: input.pricePerRequest === null ? null : input.pricePerRequest.toFixed(6) }),
  };
}

/**
 * Publishing: any account may publish one of its own queue endpoints (with a key that may write), under a model name
 * unique in the installation that is neither an endpoint id nor a reserved `/v2` segment, since the job API resolves
 * `/v2/<id or name>/...` through one path segment.
 */
export class PublicEndpointsService {
  constructor(
    private readonly publications: PublicEndpointsRepository,
    private readonly endpoints: EndpointsRepository,
  ) {}

  async publish(accountId: string, input: PublicEndpointCreateInput): Promise<PublicEndpointDto> {
    await this.checkName(input.name);
    const endpoint = await this.endpoints.findById(accountId, input.endpointId);
    if (!endpoint) throw new NotFoundError('Endpoint');
    if (endpoint.type !== 'QUEUE') throw new ValidationError('endpointId: only a QUEUE endpoint can be published');
    try {
      const row = await this.publications.create(accountId, {
        name: input.name,
        endpointId: endpoint.id,
        ...(fieldsOf(input) as PublicEndpointFields),
      });
      return toPublicEndpointDto(row);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const taken = await this.publications.nameTaken(input.name);
      throw new ConflictError(
        taken ? `name: "${input.name}" is already published` : 'endpointId: this endpoint is already published',
      );
    }
  }

  async list(accountId: string): Promise<PublicEndpointDto[]> {
    return (await this.publications.listByAccount(accountId)).map(toPublicEndpointDto);
  }

  async get(accountId: string, name: string): Promise<PublicEndpointDto> {
    const row = await this.publications.findByName(accountId, name);
    if (!row) throw new NotFoundError('Public endpoint');
    return toPublicEndpointDto(row);
  }

  async update(accountId: string, name: string, input: PublicEndpointUpdateInput): Promise<PublicEndpointDto> {
    const row = await this.publications.update(accountId, name, fieldsOf(input));
    if (!row) throw new NotFoundError('Public endpoint');
    return toPublicEndpointDto(row);
  }

  /** Unpublishes: calls to the name answer 404 at once (after the job API's short cache), and the name is free. */
  async unpublish(accountId: string, name: string): Promise<void> {
    if (!(await this.publications.remove(accountId, name))) throw new NotFoundError('Public endpoint');
  }

  /** Every public model of the installation. */
  async models(): Promise<PublicModelList> {
    return { models: (await this.publications.listAll()).map(toPublicModelDto) };
  }

  private async checkName(name: string): Promise<void> {
    if (isReservedEndpointId(name)) throw new ValidationError(`name: "${name}" is a reserved path segment`);
    if (await this.publications.endpointIdExists(name)) throw new ValidationError(`name: "${name}" is an endpoint id`);
  }
}
