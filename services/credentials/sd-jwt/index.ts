export * from './types.ts';
export * from './serialization.ts';
export * from './disclosure.ts';
export * from './issue.ts';
export * from './decode.ts';
export * from './key-binding.ts';
export * from './present.ts';
export * from './verify.ts';
