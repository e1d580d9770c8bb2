#!/usr/bin/env bash
# The logic of the mcprobe GitHub Action (action.yml), runnable locally:
#
#   INPUT_COMMAND="python -m demo_target" GITHUB_OUTPUT=/tmp/out scripts/action_audit.sh
#
# Inputs (environment; action.yml maps its inputs onto these, never into the script text):
#   INPUT_COMMAND             stdio target, one shell-quoted command line   (this or INPUT_URL)
#   INPUT_URL                 Streamable HTTP / SSE target URL              (this or INPUT_COMMAND)
#   INPUT_FUZZ                true|false (default true): call the tools with valid + malformed input
#   INPUT_FUZZ_WRITES         true|false (default false): also call destructiveHint:false tools
#   INPUT_FUZZ_DESTRUCTIVE    true|false (default false): call every tool (implies writes)
#   INPUT_MIN_SCORE           0-100 or empty: fail when the overall score is below it
#   INPUT_FAIL_ON_CRITICAL    true|false (default false): fail on a critical behavioural issue
#   INPUT_TARGET_ENV          names of environment variables (space or comma separated) handed
#                             to a stdio target with `--env NAME`: set their values from secrets
#                             in the step's `env:`; the values are scrubbed from every output
#   INPUT_BASELINE            a JSON report of an earlier run to compare with (optional)
#   INPUT_FAIL_ON_REGRESSION  true|false (default false): fail when anything got worse than it
#   INPUT_ARGS                extra `mcprobe audit` options, shell-quoted (e.g. "--timeout 10");
#                             the options the action sets itself are refused with one line
#   INPUT_OUTPUT_DIR          where the reports go (default: mcprobe-report)
#   INPUT_SARIF_ARTIFACT      repository file every SARIF result points at (GitHub code scanning
#                             drops results without a file); default README.md when it exists
#   MCPROBE_TARGET_TOKEN      bearer token for an HTTP target (read by mcprobe itself; never echoed)
#   MCPROBE_BIN               the mcprobe executable (default: mcprobe)
#   MCPROBE_PYTHON            a Python that can import mcprobe (default: python3)
#   GITHUB_OUTPUT             file receiving the step outputs (score, grade, critical, report paths)
#   GITHUB_STEP_SUMMARY       file receiving the short summary and the folded report (optional)
#
# Exit status: 0 passed; 1 bad inputs or mcprobe failed; 2 could not connect to the target;
# 3 score below min-score; 4 critical behavioural issue with fail-on-critical; 7 worse than the
# baseline with fail-on-regression (when several apply: 4, then 7, then 3).
set -euo pipefail

MCPROBE_BIN=${MCPROBE_BIN:-mcprobe}
MCPROBE_PYTHON=${MCPROBE_PYTHON:-python3}
out_dir=${INPUT_OUTPUT_DIR:-mcprobe-report}
command_line=${INPUT_COMMAND:-}
url=${INPUT_URL:-}
min_score=${INPUT_MIN_SCORE:-}
baseline=${INPUT_BASELINE:-}

error() { echo "::error title=mcprobe::$*" >&2; }

is_true() {
  case "${1,,}" in
    true | yes | 1 | on) return 0 ;;
    false | no | 0 | off | "") return 1 ;;
    *) error "expected true or false, got '$1'"; exit 1 ;;
  esac
}

if [ -n "$command_line" ] && [ -n "$url" ]; then
  error "set either 'command' or 'url', not both"; exit 1
fi
if [ -z "$command_line" ] && [ -z "$url" ]; then
  error "set 'command' (a stdio server) or 'url' (an HTTP server) to audit"; exit 1
fi
if [ -n "$min_score" ] && ! [[ "$min_score" =~ ^[0-9]+$ && "$min_score" -le 100 ]]; then
  error "min-score must be a whole number from 0 to 100, got '$min_score'"; exit 1
fi
fail_on_regression=false
if is_true "${INPUT_FAIL_ON_REGRESSION:-false}"; then fail_on_regression=true; fi
if [ "$fail_on_regression" = true ] && [ -z "$baseline" ]; then
  error "fail-on-regression needs baseline (a JSON report of an earlier run)"; exit 1
fi
if [ -n "$baseline" ] && [ ! -f "$baseline" ]; then
  error "baseline '$baseline' is not a file"; exit 1
fi

argv=(audit --format json --output "$out_dir/mcprobe-report.json")
if is_true "${INPUT_FUZZ:-true}"; then argv+=(--fuzz); fi
if is_true "${INPUT_FUZZ_WRITES:-false}"; then argv+=(--fuzz-writes); fi
if is_true "${INPUT_FUZZ_DESTRUCTIVE:-false}"; then argv+=(--fuzz-destructive); fi
if is_true "${INPUT_FAIL_ON_CRITICAL:-false}"; then argv+=(--fail-on-critical); fi
if [ -n "$baseline" ]; then argv+=(--baseline "$baseline"); fi
if [ "$fail_on_regression" = true ]; then argv+=(--fail-on-regression); fi

# target-env: names only; the values come from the step's environment (secrets), never argv.
target_env=${INPUT_TARGET_ENV:-}
for name in ${target_env//,/ }; do
  if ! [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
    error "target-env: '$name' is not a variable name"; exit 1
  fi
  if [ -z "${!name+set}" ]; then
    error "target-env: $name is not set (give it in the step's env:, e.g. from a secret)"; exit 1
  fi
  if [ -n "$url" ]; then
    error "target-env applies to a stdio 'command', not a 'url' (use the token input or --header)"
    exit 1
  fi
  # target-env is for secrets: mark each one so it is redacted whatever its name or shape.
  argv+=(--env "$name" --secret-env "$name")
done

if [ -n "${INPUT_ARGS:-}" ]; then
  # shlex, not eval: the extra arguments are split like a shell would, never executed. The
  # options the action sets itself are refused here, each with one line, before anything runs.
  extra_file=$(mktemp)
  trap 'rm -f "$extra_file"' EXIT
  if ! "$MCPROBE_PYTHON" - "$INPUT_ARGS" >"$extra_file" <<'PY'
import shlex
import sys

try:
    args = shlex.split(sys.argv[1])
except ValueError as exc:
    print(f"::error title=mcprobe::args: cannot split {sys.argv[1]!r}: {exc}", file=sys.stderr)
    sys.exit(1)
owned = {
    "--format": "the action writes JSON, SARIF, Markdown and HTML reports itself",
    "--json": "the action writes JSON, SARIF, Markdown and HTML reports itself",
    "--output": "the reports go to output-dir",
    "--output-dir": "the reports go to output-dir",
    "--sarif-artifact": "use the sarif-artifact input",
    "--stdio": "use the command input",
    "--": "use the command input",
    "--baseline": "use the baseline input",
    "--fail-on-regression": "use the fail-on-regression input",
    "--config": "the action audits one server per step: use command or url",
    "--server": "the action audits one server per step: use command or url",
}
for arg in args:
    name = arg if arg == "--" else arg.split("=", 1)[0]
    if name in owned:
        print(f"::error title=mcprobe::args: {name} is set by the action; {owned[name]}",
              file=sys.stderr)
        sys.exit(1)
sys.stdout.write("".join(a + "\0" for a in args))
PY
  then
    exit 1
  fi
  mapfile -d '' -t extra <"$extra_file"
  argv+=("${extra[@]}")
fi
if [ -n "$url" ]; then argv+=("$url"); else argv+=(--stdio "$command_line"); fi

mkdir -p "$out_dir"
rm -f "$out_dir/mcprobe-report.json"
set +e
"$MCPROBE_BIN" "${argv[@]}"
status=$?
set -e

if [ "$status" -eq 2 ]; then
  error "could not connect to the target (see the log above)"; exit 2
fi
if [ ! -s "$out_dir/mcprobe-report.json" ]; then
  error "mcprobe exited with status $status and wrote no report (see the log above)"; exit 1
fi

# One audit, four renderings: SARIF, Markdown and HTML come from the JSON report, not a second
# run. The summary gets the short version, the baseline lines, and the full report folded.
sarif_artifact=${INPUT_SARIF_ARTIFACT:-}
if [ -z "$sarif_artifact" ] && [ -f README.md ]; then sarif_artifact=README.md; fi
score=$("$MCPROBE_PYTHON" - "$out_dir" "${GITHUB_OUTPUT:-/dev/null}" "${GITHUB_STEP_SUMMARY:-}" \
  "$sarif_artifact" "$baseline" <<'PY'
import json
import pathlib
import sys

from pydantic import ValidationError

from mcprobe import render_report
from mcprobe.report.model import ConformanceReport
from mcprobe.report.render.step_summary import render_step_summary

out_dir, github_output, summary = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
artifact, baseline_path = sys.argv[4] or None, sys.argv[5]
json_path = out_dir / "mcprobe-report.json"
try:
    report = ConformanceReport.model_validate_json(json_path.read_text(encoding="utf-8"))
except (OSError, ValueError, ValidationError) as exc:
    first = str(exc).splitlines()[0]
    print(f"::error title=mcprobe::{json_path} is not an mcprobe JSON report: {first}",
          file=sys.stderr)
    sys.exit(1)
sarif_path = out_dir / "mcprobe.sarif"
md_path = out_dir / "mcprobe-report.md"
html_path = out_dir / "mcprobe-report.html"
sarif_path.write_text(render_report(report, format="sarif", sarif_artifact=artifact), encoding="utf-8")
markdown = render_report(report, format="md")
md_path.write_text(markdown, encoding="utf-8")
html_path.write_text(render_report(report, format="html"), encoding="utf-8")
score = "" if report.overall is None else str(report.overall)
outputs = {
    "score": score,
    "grade": report.grade,
    "critical": str(len(report.critical)),
    "json": str(json_path),
    "sarif": str(sarif_path),
    "markdown": str(md_path),
    "html": str(html_path),
}
with open(github_output, "a", encoding="utf-8") as fh:
    fh.writelines(f"{key}={value}\n" for key, value in outputs.items())
if summary:
    compared: list[str] = []
    if baseline_path:  # mcprobe already read and checked it; the same comparison, for the page
        from mcprobe.report.baseline import BaselineReport, compare, load_baseline
        from mcprobe.report.render.baseline_text import render_baseline
        from mcprobe.report.render.json_report import report_to_jsonable

        before = load_baseline(json.loads(pathlib.Path(baseline_path).read_text(encoding="utf-8")))
        now = BaselineReport.model_validate(report_to_jsonable(report))
        compared = [line.strip() for line in render_baseline(compare(before, now))]
    with open(summary, "a", encoding="utf-8") as fh:
        fh.write(render_step_summary(report, compared))
        fh.write("\n<details><summary>Full report</summary>\n\n" + markdown + "\n</details>\n")
shown = score or (f"not graded ({report.not_graded})" if report.not_graded else "not measured")
print(f"mcprobe: score {shown}, grade {report.grade}", file=sys.stderr)
print(score)
PY
)

if [ "$status" -eq 4 ]; then
  error "critical behavioural issue found (fail-on-critical is set); see the report"; exit 4
fi
if [ "$status" -eq 7 ]; then
  error "worse than the baseline (fail-on-regression is set); see the log above"; exit 7
fi
if [ "$status" -ne 0 ]; then
  error "mcprobe exited with status $status"; exit "$status"
fi
if [ -n "$min_score" ]; then
  if [ -z "$score" ]; then
    error "the report is not graded (no tool was called; see the log), so min-score $min_score cannot be met"; exit 3
  fi
  if [ "$score" -lt "$min_score" ]; then
    error "score $score is below min-score $min_score"; exit 3
  fi
fi
echo "mcprobe: passed" >&2
