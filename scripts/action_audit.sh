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
# One audit writes every report: `mcprobe audit --format json --output DIR/mcprobe-report.json
# --report sarif,md,html --report-dir DIR`; the job summary is `mcprobe render --step-summary`.
# The gates are mcprobe's own (min-score is --fail-under), so the exit status and its messages
# are exactly the CLI's: 0 passed; 1 bad inputs or usage error (e.g. min-score over a report
# that is not graded); 2 could not connect; 3 score below min-score; 4 critical behavioural
# issue with fail-on-critical; 5 internal error; 7 worse than the baseline with
# fail-on-regression (when several apply: 4, then 7, then 3). The job summary says when the
# step failed and why.
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

argv=(audit --format json --output "$out_dir/mcprobe-report.json"
  --report sarif,md,html --report-dir "$out_dir")
sarif_artifact=${INPUT_SARIF_ARTIFACT:-}
if [ -z "$sarif_artifact" ] && [ -f README.md ]; then sarif_artifact=README.md; fi
if [ -n "$sarif_artifact" ]; then argv+=(--sarif-artifact "$sarif_artifact"); fi
if [ -n "$min_score" ]; then argv+=(--fail-under "$min_score"); fi
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
    "--report": "the action writes JSON, SARIF, Markdown and HTML reports itself",
    "--report-dir": "the reports go to output-dir",
    "--fail-under": "use the min-score input",
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
json_path="$out_dir/mcprobe-report.json"
set +e
"$MCPROBE_BIN" "${argv[@]}"
status=$?
set -e

if [ "$status" -eq 2 ]; then
  error "could not connect to the target (see the log above)"; exit 2
fi
if [ ! -s "$json_path" ]; then
  error "mcprobe exited with status $status and wrote no report (see the log above)"; exit 1
fi

# The outputs, read from the JSON report with the standard library only (no mcprobe module).
"$MCPROBE_PYTHON" - "$json_path" "${GITHUB_OUTPUT:-/dev/null}" "$out_dir" <<'PY'
import json
import sys

path, github_output, out_dir = sys.argv[1:4]
report = json.loads(open(path, encoding="utf-8").read())
score = "" if report.get("overall") is None else str(report["overall"])
outputs = {
    "score": score,
    "grade": report.get("grade", "-"),
    "critical": str(len(report.get("critical", []))),
    "json": path,
    "sarif": f"{out_dir}/mcprobe-report.sarif",
    "markdown": f"{out_dir}/mcprobe-report.md",
    "html": f"{out_dir}/mcprobe-report.html",
}
with open(github_output, "a", encoding="utf-8") as fh:
    fh.writelines(f"{key}={value}\n" for key, value in outputs.items())
PY

# The job summary: the same renderer as `mcprobe render`, with the comparison and the verdict.
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  summary=(render "$json_path" --step-summary "$GITHUB_STEP_SUMMARY" --exit-code "$status")
  if [ -n "$baseline" ]; then summary+=(--baseline "$baseline"); fi
  "$MCPROBE_BIN" "${summary[@]}" || error "could not write the job summary"
fi

# The step's exit code is mcprobe's own, with mcprobe's own reasons printed above.
if [ "$status" -ne 0 ]; then
  error "mcprobe exited with status $status (the lines above say why); the step fails with it"
  exit "$status"
fi
echo "mcprobe: passed" >&2
