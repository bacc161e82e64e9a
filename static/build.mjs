// Bundles static/src into static/dist (git-ignored): the pages' modules, one style sheet, KaTeX fonts, Swagger UI.
//
// The exercise page (and the roadmap's filters) are ES modules split into chunks: what every page needs loads at once, and
// what only some visits use (KaTeX when a statement has math, vim keys, the diff view) is a chunk
// of its own, fetched when first used. Chunk and font names carry a content hash; the entry files
// are addressed with ?v=<version>, a hash of the whole build. Each text file is also written
// compressed (.br and .gz), so the server sends precompressed bytes instead of compressing per request.
import { createHash } from "node:crypto";
import { cp, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const outdir = "static/dist";
const common = { bundle: true, minify: true, target: ["es2020"], logLevel: "warning", legalComments: "none" };

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
const pages = await esbuild.build({
  ...common,
  entryPoints: { exercise: "static/src/exercise.js", roadmap: "static/src/roadmap.js" },
  format: "esm",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  outdir,
  metafile: true,
});
await esbuild.build({ ...common, entryPoints: { docs: "static/src/docs.js" }, format: "iife", outdir });
await esbuild.build({
  ...common,
  entryPoints: { app: "static/src/app.css" },
  outdir,
  // KaTeX's style sheet points at its fonts: esbuild copies them next to the bundle.
  loader: { ".woff2": "file", ".woff": "file", ".ttf": "file" },
  assetNames: "fonts/[name]-[hash]",
});
await mkdir(`${outdir}/swagger-ui`, { recursive: true });
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
  await cp(`node_modules/swagger-ui-dist/${file}`, `${outdir}/swagger-ui/${file}`);
}
await cp("static/favicon.svg", `${outdir}/favicon.svg`);

// What each entry imports statically: the page lists them as <link rel="modulepreload">, so the
// browser fetches them in parallel with the entry instead of after parsing it.
const manifest = {};
for (const [file, output] of Object.entries(pages.metafile.outputs)) {
  if (!output.entryPoint) continue;
  const name = relative(outdir, file);
  manifest[name] = output.imports.filter((i) => i.kind === "import-statement").map((i) => relative(outdir, i.path));
}

const files = await listFiles(outdir);
const hash = createHash("sha256");
for (const file of files.sort()) hash.update(file).update(await readFile(file));
const version = hash.digest("hex").slice(0, 12);
await writeFile(`${outdir}/manifest.json`, JSON.stringify({ version, preload: manifest }, null, 2));

const COMPRESSIBLE = /\.(js|css|svg|json|ttf|map)$/;
for (const file of [...files, `${outdir}/manifest.json`]) {
  if (!COMPRESSIBLE.test(file)) continue;
  const data = await readFile(file);
  await writeFile(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  await writeFile(`${file}.gz`, gzipSync(data, { level: 9 }));
}
console.log(`built ${outdir} (version ${version})`);

async function listFiles(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await listFiles(path)));
    else found.push(path);
  }
  return found;
}
