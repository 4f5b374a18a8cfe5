/** Where backups live: a directory in Node, OPFS in a browser, or anything with these four calls. */
export interface BackupStore {
  /** Names of the files held; the rotation only touches names it made. */
  list(): Promise<string[]>;
  read(name: string): Promise<Uint8Array>;
  /** Atomic: a reader sees no file, or the whole file — never part of one. */
  write(name: string, bytes: Uint8Array): Promise<void>;
  remove(name: string): Promise<void>;
}
