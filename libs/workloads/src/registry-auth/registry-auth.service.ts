import {
  type ContainerRegistryAuthCreateInput,
  type ContainerRegistryAuthDto,
  NotFoundError,
  ValidationError,
} from '@runplane/contracts';
import { type ContainerRegistryAuth, isUniqueViolation, newId, type SecretBox } from '@runplane/db';
import { inUseMessage } from './in-use';
import type { RegistryAuthRepository } from './registry-auth.repository';

/** Registry credentials in clear, for building image pull secrets; never part of an API response. */
export interface RegistryCredentials {
  username: string;
  password: string;
}

function toDto(row: ContainerRegistryAuth): ContainerRegistryAuthDto {
  return { id: row.id, name: row.name, username: row.username };
}

const aad = (accountId: string, id: string): string => `container-registry-auth:${accountId}:${id}`;

/** Container registry auths: passwords are sealed with AES-256-GCM before they reach the database. */
export class RegistryAuthService {
  constructor(
    private readonly auths: RegistryAuthRepository,
    private readonly box: SecretBox,
  ) {}

  async create(accountId: string, input: ContainerRegistryAuthCreateInput): Promise<ContainerRegistryAuthDto> {
    const id = newId();
    try {
      const row = await this.auths.create({
        id,
        accountId,
        name: input.name,
        username: input.username,
        passwordEncrypted: this.box.seal(input.password, aad(accountId, id)),
      });
      return toDto(row);
    } catch (error) {
      // RunPod answers a duplicate name as invalid input (400), so clients see the error they expect.
      if (isUniqueViolation(error)) {
        throw new ValidationError(`name: a container registry auth named "${input.name}" already exists`);
      }
      throw error;
    }
  }

  async list(accountId: string): Promise<ContainerRegistryAuthDto[]> {
    return (await this.auths.listByAccount(accountId)).map(toDto);
  }

  async get(accountId: string, id: string): Promise<ContainerRegistryAuthDto> {
    return toDto(await this.require(accountId, id));
  }

  /** Replaces the auth's username and password (the password sealed as on create); the name stays. */
  async updateCredentials(
    accountId: string,
    id: string,
    input: Pick<ContainerRegistryAuthCreateInput, 'username' | 'password'>,
  ): Promise<ContainerRegistryAuthDto> {
    const row = await this.auths.updateCredentials(accountId, id, {
      username: input.username,
      passwordEncrypted: this.box.seal(input.password, aad(accountId, id)),
    });
    if (!row) throw new NotFoundError('Container registry auth');
    return toDto(row);
  }

  /** Deletes the auth; refused (400, naming them) while a Pod or template still uses it. */
  async delete(accountId: string, id: string): Promise<void> {
    const outcome = await this.auths.deleteUnused(accountId, id);
    if (outcome.status === 'missing') throw new NotFoundError('Container registry auth');
    if (outcome.status === 'in-use') {
      throw new ValidationError(
        inUseMessage('Container registry auth', outcome.usage) ??
          'Container registry auth is in use; delete or change its users first',
      );
    }
  }

  /** Decrypted credentials for the scheduler's pull secrets. */
  async credentials(accountId: string, id: string): Promise<RegistryCredentials> {
    const row = await this.require(accountId, id);
    return { username: row.username, password: this.box.open(row.passwordEncrypted, aad(accountId, id)) };
  }

  private async require(accountId: string, id: string): Promise<ContainerRegistryAuth> {
    const row = await this.auths.findById(accountId, id);
    if (!row) throw new NotFoundError('Container registry auth');
    return row;
  }
}
