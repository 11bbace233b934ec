/** What one GraphQL request's resolvers act for: the authenticated account. */
export interface LegacyContext {
  accountId: string;
}
