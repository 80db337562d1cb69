"""Reads a JUnit XML file with junitparser (PyPI), as a CI system would, and
prints what it found as JSON: the counts the file declares, and the counts
from its test cases' own results.

    python junit_counts.py FILE.xml
"""

import json
import sys

from junitparser import Error, Failure, JUnitXml, Skipped

xml = JUnitXml.fromfile(sys.argv[1])
cases = []
for suite in xml:
    for case in suite:
        kinds = [type(r).__name__.lower() for r in case.result]
        cases.append({
            "suite": suite.name,
            "classname": case.classname,
            "name": case.name,
            "time": case.time,
            "results": kinds,
            "message": next((r.message for r in case.result if isinstance(r, (Failure, Error))), None),
        })
declared = {"tests": xml.tests, "failures": xml.failures, "errors": xml.errors}
counted = {
    "tests": len(cases),
    "failures": sum("failure" in c["results"] for c in cases),
    "errors": sum("error" in c["results"] for c in cases),
    "skipped": sum("skipped" in c["results"] for c in cases),
    "passed": sum(not c["results"] for c in cases),
}
print(json.dumps({"declared": declared, "counted": counted, "cases": cases}))
