/** Injection token of the gateway's LegacyGraphql (the executor of `POST /graphql`). */
export const LEGACY_GRAPHQL = Symbol('LEGACY_GRAPHQL');
