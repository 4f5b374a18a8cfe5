/** Node-only entry (`hybridmind/node`): what needs the local file system. */
export { DirectoryBackupStore, loadSnapshotFile, saveSnapshotFile, writeFileAtomic } from './snapshot/node-files.js';
export { defaultLocalModelPath, findLocalModel, localModelRoots, type LocalModel } from './embedder/local-model.js';
export { SqliteFileDriver, type SqliteFileOptions } from './storage/node-file.js';
