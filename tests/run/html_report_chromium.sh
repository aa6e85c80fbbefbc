#!/usr/bin/env bash
# Opens a per-layer accuracy page (src/common/layer_chart_html.h: svp_compare's compare.html,
# svp_atc's <output>_layer_accuracy.html) in headless Chromium: its script must run and find
# every table row and chart bar the page holds (it records them in <body data-rows
# data-bars data-rendered>), one row per data row of the CSV written beside it.
#   html_report_chromium.sh PAGE.html PAGE.csv WORK_DIR [chromium]
# Exit 77 (ctest SKIP_RETURN_CODE) when Chromium is not installed or the page is missing
# (the test that writes it skipped).
set -euo pipefail
. "$(dirname "$0")/../headless_chromium.sh"
report=$1 csv=$2 work=$3
find_chromium "${4:-}"
if [ ! -s "$report" ] || [ ! -s "$csv" ]; then
  echo "SKIP: $report or $csv not there (the test writing them skipped)"
  exit 77
fi
rows=$(($(wc -l <"$csv") - 1))
bars=$(grep -o '<rect class="bar' "$report" | wc -l)
if [ "$(grep -c '^<tr' "$report")" -ne "$rows" ]; then
  echo "FAIL: the page holds $(grep -c '^<tr' "$report") table rows, $csv $rows"
  exit 1
fi
rm -rf "$work" && mkdir -p "$work"
dump_body "$report" "$work"
for want in "data-rows=\"$rows\"" "data-bars=\"$bars\"" 'data-rendered="1"'; do
  if [[ "$body" != *"$want"* ]]; then
    echo "FAIL: expected $want on <body>"
    tail -20 "$work/chromium.log"
    exit 1
  fi
done
# The first cosine column is on screen in a 1400 px window, however long the layer names.
right=$(sed -n 's/.*data-cosine-right="\([0-9]*\)".*/\1/p' <<<"$body")
if [ -z "$right" ] || [ "$right" -gt 1400 ]; then
  echo "FAIL: the first cosine column ends at x=${right:-?}, beyond a 1400 px window"
  exit 1
fi
echo "OK: $rows table rows and $bars chart bars rendered; the cosine column ends at x=$right"
