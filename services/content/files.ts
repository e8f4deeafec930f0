/**
 * Read access to the files the service is built from: content (protocols, flows, concepts, skills),
 * the conformance registry and report. A port, as the event log is: services read through it, and
 * adapters/files/node-files.ts implements it on the file system.
 */
export interface SourceFiles {
  exists(path: string): boolean;
  /** The entry names of a directory, sorted; none when it does not exist. */
  list(dir: string): string[];
  readText(path: string): string;
  readBytes(path: string): Uint8Array;
}
