import { NotFoundError, ValidationError } from '@runplane/contracts';
import { type Account, newId } from '@runplane/db';
import type { AccountsRepository } from './accounts.repository';

/** An account as operators see it. */
export interface AccountDto {
  id: string;
  name: string;
  createdAt: string;
}

function toDto(row: Account): AccountDto {
  return { id: row.id, name: row.name, createdAt: row.createdAt.toISOString() };
}

/** Account lifecycle (operator-facing: the CLI and the start command). */
export class AccountsService {
  constructor(private readonly accounts: AccountsRepository) {}

  async create(input: { name: string }): Promise<AccountDto> {
    const name = input.name.trim();
    if (!name) throw new ValidationError('name: must not be empty');
    return toDto(await this.accounts.create({ id: newId(), name }));
  }

  async findById(id: string): Promise<AccountDto | null> {
    const row = await this.accounts.findById(id);
    return row ? toDto(row) : null;
  }

  async get(id: string): Promise<AccountDto> {
    const account = await this.findById(id);
    if (!account) throw new NotFoundError('Account');
    return account;
  }

  async list(): Promise<AccountDto[]> {
    return (await this.accounts.list()).map(toDto);
  }
}
