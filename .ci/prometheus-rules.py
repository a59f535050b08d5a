#!/usr/bin/env python3
"""Prints the rule groups of the one PrometheusRule in a `kubectl kustomize` rendering, as a plain Prometheus rule
file for promtool. Text only, since CI's python has no YAML library for certain: kustomize writes each object's
top-level keys at column 0 and everything below them indented, so the rule file is the lines under `spec:`,
two spaces less indented."""
import sys

rendered = open(sys.argv[1], encoding="utf-8").read()
documents = [doc for doc in rendered.split("\n---\n") if "\nkind: PrometheusRule\n" in "\n" + doc + "\n"]
if len(documents) != 1:
    sys.exit(f"{sys.argv[1]}: expected one PrometheusRule, found {len(documents)}")

lines = documents[0].splitlines()
start = lines.index("spec:") + 1
body = []
for line in lines[start:]:
    if line and not line.startswith("  "):
        break
    body.append(line[2:])
if not body or body[0] != "groups:":
    sys.exit(f"{sys.argv[1]}: the PrometheusRule's spec does not start with groups")
print("\n".join(body))
