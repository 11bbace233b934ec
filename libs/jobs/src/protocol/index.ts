export * from './keys';
export * from './wake-messages';
export * from './channels';
export * from './takers';
export * from './finished';
