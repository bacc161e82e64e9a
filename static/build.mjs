// Bundles static/src into static/dist (git-ignored): scripts, one style sheet, KaTeX fonts, Swagger UI.
import { cp, mkdir, rm } from "node:fs/promises";
import * as esbuild from "esbuild";

const outdir = "static/dist";
const common = { bundle: true, minify: true, target: ["es2020"], logLevel: "warning", legalComments: "none" };

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
await esbuild.build({
  ...common,
  entryPoints: { exercise: "static/src/exercise.js", docs: "static/src/docs.js" },
  format: "iife",
  outdir,
});
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
console.log(`built ${outdir}`);
