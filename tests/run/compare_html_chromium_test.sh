#!/usr/bin/env bash
# Opens the compare.html that the svp_compare_fashion_mnist test wrote in headless Chromium:
# its script must run and find one table row and one chart bar per row of compare.csv (it
# records them in <body data-rows data-bars data-rendered>).
#   compare_html_chromium_test.sh <report dir> <work dir> [chromium]
# Exit 77 (ctest SKIP_RETURN_CODE) when Chromium is not installed or there is no report
# (the Fashion-MNIST test skipped for want of the dataset).
set -euo pipefail
report_dir=$1 work=$2
chromium=${3:-}
if [ -z "$chromium" ] || [ ! -x "$chromium" ]; then
  chromium=$(command -v chromium || command -v chromium-browser || true)
fi
if [ -z "$chromium" ]; then
  echo "SKIP: chromium not found (apt-get install chromium; scripts/deps.sh installs it)"
  exit 77
fi
report="$report_dir/compare.html"
if [ ! -s "$report" ] || [ ! -s "$report_dir/compare.csv" ]; then
  echo "SKIP: $report not there (svp_compare_fashion_mnist writes it; it skips without the dataset)"
  exit 77
fi
rows=$(($(wc -l <"$report_dir/compare.csv") - 1))
rm -rf "$work" && mkdir -p "$work"
# Root (CI) needs --no-sandbox; a private profile keeps runs independent; the virtual
# time budget lets the page's script finish before the DOM is dumped.
flags=(--headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check
       --disable-background-networking --disable-component-update --disable-sync
       --disable-dev-shm-usage --user-data-dir="$work/chromium-profile" --virtual-time-budget=5000)
if ! timeout 60 "$chromium" "${flags[@]}" --dump-dom "file://$report" >"$work/dom.html" 2>"$work/chromium.log"; then
  echo "FAIL: chromium --dump-dom failed or timed out; its log:"
  tail -20 "$work/chromium.log"
  exit 1
fi
body=$(grep -o '<body[^>]*>' "$work/dom.html" || true)
echo "dumped body tag: $body"
for want in "data-rows=\"$rows\"" "data-bars=\"$rows\"" 'data-rendered="1"'; do
  if [[ "$body" != *"$want"* ]]; then
    echo "FAIL: expected $want on <body> ($rows rows in compare.csv)"
    tail -20 "$work/chromium.log"
    exit 1
  fi
done
echo "OK: $rows table rows and chart bars rendered"
