/**
 * Prisma's generated client loads its WebAssembly query compiler from a module of the runtime whose only export is
 * the compiler as a base64 string (2.2 MB). Node's module cache keeps that module, and with it the string, for the
 * life of the process, though the compiler is compiled once, when the client's engine starts.
 */
const COMPILER_SOURCE = /[\\/]@prisma[\\/]client[\\/]runtime[\\/][^\\/]+\.wasm-base64\.js$/;

/**
 * Drops Prisma's base64 query compiler module(s) from Node's module cache once the engine has started (call it after
 * the first query), so the garbage collector can free the string: ~2 MB less in every service. A client created
 * later still starts (Prisma keeps the compiled module; failing that it would read the file again). Returns how many
 * modules were dropped.
 */
export function releaseQueryCompilerSource(cache: NodeJS.Require['cache'] = require.cache): number {
  const modules = Object.values(cache).filter((entry): entry is NodeJS.Module => entry !== undefined);
  let released = 0;
  for (const [file, entry] of Object.entries(cache)) {
    if (entry === undefined || !COMPILER_SOURCE.test(file)) continue;
    delete cache[file];
    // The module that required it lists it as a child: that reference would keep the exports alive.
    for (const owner of modules) {
      const index = owner.children.indexOf(entry);
      if (index >= 0) owner.children.splice(index, 1);
    }
    released += 1;
  }
  return released;
}
