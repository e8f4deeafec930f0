export * from './types.ts';
export * from './validate.ts';
export * from './claims-path.ts';
export * from './evaluate.ts';
export * from './from-verified.ts';
