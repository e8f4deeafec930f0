export * from './document-loader.ts';
export * from './canonize.ts';
export * from './data-integrity.ts';
export * from './ldp-vc.ts';
export * from './jwt-vc.ts';
