export * from './chain.ts';
export * from './path.ts';
export * from './x5c.ts';
