#!/usr/bin/python3
"""Reads `newsstand publish`'s outputs with other people's readers: feedparser for the RSS feed
and the OPDS 1.2 (Atom) feeds, jsonschema with the OPDS 2.0 schemas for opds.json.

Usage: validate-publish.py OUTPUT_FOLDER SCHEMA_FOLDER. Prints one line per file; exits 1 when
any reader found a fault. Every schema is loaded by its $id: nothing is fetched."""
import glob
import json
import os
import sys

import feedparser
import jsonschema

output, schemas = sys.argv[1], sys.argv[2]
faults = 0

for name in ["feed.rss", "opds-root.xml"] + sorted(os.path.basename(p) for p in glob.glob(os.path.join(output, "opds*.xml")) if not p.endswith("opds-root.xml")):
    parsed = feedparser.parse(os.path.join(output, name))
    if parsed.bozo:
        faults += 1
        print(f"{name}: feedparser: bozo: {parsed.bozo_exception!r}")
        continue
    enclosures = sum(1 for entry in parsed.entries for link in entry.get("links", [])
                     if link.get("rel") in ("enclosure", "http://opds-spec.org/acquisition", "http://opds-spec.org/acquisition/open-access")
                     and link.get("type") and link.get("length") not in (None, "", "0"))
    print(f"{name}: {parsed.version}, {len(parsed.entries)} entries, {enclosures} typed and sized downloads")

store = {}
for path in glob.glob(os.path.join(schemas, "**", "*.schema.json"), recursive=True):
    with open(path, encoding="utf-8") as handle:
        schema = json.load(handle)
    store[schema["$id"]] = schema
feed_schema = store["https://drafts.opds.io/schema/feed.schema.json"]
validator = jsonschema.Draft7Validator(feed_schema, resolver=jsonschema.RefResolver.from_schema(feed_schema, store=store),
                                       format_checker=jsonschema.draft7_format_checker)
for path in sorted(glob.glob(os.path.join(output, "opds*.json"))):
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    errors = sorted(validator.iter_errors(document), key=lambda error: list(error.absolute_path))
    name = os.path.basename(path)
    for error in errors:
        print(f"{name}: OPDS 2.0 schema: {'/'.join(map(str, error.absolute_path))}: {error.message}")
    faults += len(errors)
    if not errors:
        print(f"{name}: valid OPDS 2.0, {len(document.get('publications', []))} publications")

sys.exit(1 if faults else 0)
