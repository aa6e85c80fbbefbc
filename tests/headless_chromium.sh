# Headless Chromium for the HTML report tests (sourced by bash scripts, not run):
#   find_chromium [PATH]      sets $chromium (PATH if executable, else chromium or
#                             chromium-browser on the PATH); exits 77 (ctest's skip) if none
#   chromium_flags WORK       sets the array $flags: root (CI) needs --no-sandbox; a private
#                             profile in WORK keeps runs independent; the virtual time budget
#                             lets a page's script finish before the DOM is dumped; a
#                             1400 px wide window, the layout the reports are checked at
#   dump_body PAGE WORK       loads PAGE, writes its DOM to WORK/dom.html and the log to
#                             WORK/chromium.log, and sets $body to the page's <body ...> tag
#                             (the reports record what they rendered in its data attributes);
#                             exits 1 if Chromium fails or times out
find_chromium() {
  chromium=${1:-}
  if [ -z "$chromium" ] || [ ! -x "$chromium" ]; then
    chromium=$(command -v chromium || command -v chromium-browser || true)
  fi
  if [ -z "$chromium" ]; then
    echo "SKIP: chromium not found (apt-get install chromium; scripts/deps.sh installs it)"
    exit 77
  fi
}

chromium_flags() {
  flags=(--headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check
         --disable-background-networking --disable-component-update --disable-sync
         --disable-dev-shm-usage --user-data-dir="$1/chromium-profile" --virtual-time-budget=5000
         --window-size=1400,900)
}

dump_body() {
  local page=$1 work=$2
  chromium_flags "$work"
  if ! timeout 60 "$chromium" "${flags[@]}" --dump-dom "file://$page" >"$work/dom.html" 2>"$work/chromium.log"; then
    echo "FAIL: chromium --dump-dom failed or timed out; its log:"
    tail -20 "$work/chromium.log"
    exit 1
  fi
  body=$(grep -o '<body[^>]*>' "$work/dom.html" || true)
  echo "dumped body tag: $body"
}
