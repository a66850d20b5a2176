#!/usr/bin/env node
// Validates Kubernetes manifests (multi-document YAML files) against the
// official OpenAPI schemas carried by the npm package kubernetes-models.
//   node validate-k8s.mjs FILE...
// Exit 0: every document valid; 1: a document is invalid; 2: usage error or a kind without a schema.
import fs from 'node:fs';
import yaml from 'js-yaml';

async function modelFor(apiVersion, kind) {
  try {
    const mod = await import(`kubernetes-models/${apiVersion}`);
    return mod[kind] || null;
  } catch {
    return null;
  }
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: validate-k8s.mjs FILE...');
  process.exit(2);
}
let failed = 0;
let unknown = 0;
let count = 0;
for (const file of files) {
  let docs;
  try {
    docs = yaml.loadAll(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    console.error(`${file}: not valid YAML: ${e.message}`);
    failed++;
    continue;
  }
  for (const [i, doc] of docs.entries()) {
    if (doc === null || doc === undefined) continue;
    count++;
    const where = `${file}#${i} ${doc.kind}/${doc.metadata && doc.metadata.name}`;
    const Model = await modelFor(String(doc.apiVersion), String(doc.kind));
    if (!Model) {
      console.error(`${where}: no schema for ${doc.apiVersion} ${doc.kind}`);
      unknown++;
      continue;
    }
    try {
      new Model(doc).validate();
      console.log(`ok ${where}`);
    } catch (e) {
      console.error(`${where}: invalid: ${e.message}`);
      failed++;
    }
  }
}
if (count === 0) {
  console.error('no Kubernetes documents found');
  process.exit(2);
}
process.exit(failed ? 1 : unknown ? 2 : 0);
