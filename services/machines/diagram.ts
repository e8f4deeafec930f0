/**
 * The port through which machine diagrams are laid out: DOT in, SVG out. The adapter uses Graphviz
 * compiled to WebAssembly; nothing is laid out by hand.
 */
export type DiagramRenderer = (dot: string) => Promise<string>;
