export * from './base58.ts';
export * from './holder-keys.ts';
export * from './multikey.ts';
export * from './did-document.ts';
export * from './did-key.ts';
export * from './did-jwk.ts';
export * from './did-web.ts';
export * from './resolve.ts';
