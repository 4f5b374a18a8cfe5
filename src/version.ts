/**
 * The library version, recorded in every snapshot manifest. Reading package.json at run time
 * does not work in every bundle and runtime, so it is kept here and a test holds it equal to
 * package.json's `version`.
 */
export const VERSION = '0.1.0';
