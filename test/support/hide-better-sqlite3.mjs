// Preloaded with --import: makes `better-sqlite3` unresolvable, as in an app that did not install the optional peer.
import { register } from 'node:module';

const hooks = `export async function resolve(specifier, context, next) {
  if (specifier === 'better-sqlite3') {
    const error = new Error("Cannot find package 'better-sqlite3' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
