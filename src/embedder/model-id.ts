/** The sentence model the library provisions and loads by default: all-MiniLM-L6-v2, 384-d. */
export const DEFAULT_MODEL_ID = 'Xenova/all-MiniLM-L6-v2';

/** The command that provisions it into the user cache the default embedder reads. */
export const FETCH_COMMAND = 'npx hybridmind model fetch';
