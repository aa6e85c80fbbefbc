#!/usr/bin/env bash
# Opens an svp_prof report.html in headless Chromium: the page's script must run and draw
# every task bar and operator slice of a synthetic JOB (it records the counts in
# <body data-task-bars data-op-slices data-rendered>), and a screenshot is kept in
# <artifacts>/svp_prof_report.png for people to look at.
#   html_report_chromium_test.sh <svp_prof> <svp_prof_synth_job> <work dir> <artifacts dir> [chromium]
# Exit 77 (ctest SKIP_RETURN_CODE) when Chromium is not installed.
set -euo pipefail
. "$(dirname "$0")/../headless_chromium.sh"
svp_prof=$1 synth=$2 work=$3 artifacts=$4
find_chromium "${5:-}"

rm -rf "$work"
mkdir -p "$work" "$artifacts"
tasks=40
counts=$("$synth" "$work/JOB20261121140000_4242_0" "$tasks" 3)
expected_ops=${counts##*ops=}
"$svp_prof" --quiet "$work/JOB20261121140000_4242_0" -o "$work/report"
report="$work/report/report.html"

dump_body "$report" "$work"
fail=0
for want in "data-task-bars=\"$tasks\"" "data-op-slices=\"$expected_ops\"" 'data-rendered="1"'; do
  if [[ "$body" != *"$want"* ]]; then
    echo "FAIL: expected $want on <body>"
    fail=1
  fi
done
[ "$fail" -eq 0 ] || { tail -20 "$work/chromium.log"; exit 1; }

# Interaction: a copy of the page with a script that zooms in with the mouse wheel,
# drags, and presses "Reset view", recording the task bars drawn after each step.
cat >"$work/interact.js" <<'JS'
<script>
(function () {
  const c = document.getElementById('timeline');
  const r = c.getBoundingClientRect();
  const x = r.left + 170 + (r.width - 170) / 2;
  const y = r.top + 40;
  const b = document.body.dataset;
  // Timers advance headless virtual time; the page draws in animation frames meanwhile.
  const frame = (f) => setTimeout(f, 200);
  for (let i = 0; i < 10; ++i) {
    c.dispatchEvent(new WheelEvent('wheel', {deltaY: -300, clientX: x, clientY: y, bubbles: true, cancelable: true}));
  }
  frame(() => {
    b.zoomedTaskBars = b.taskBars;
    b.zoomedRange = document.getElementById('view-range').textContent;
    c.dispatchEvent(new MouseEvent('mousedown', {clientX: x, clientY: y, bubbles: true}));
    window.dispatchEvent(new MouseEvent('mousemove', {clientX: x + 300, clientY: y}));
    window.dispatchEvent(new MouseEvent('mouseup', {clientX: x + 300, clientY: y}));
    frame(() => {
      b.pannedRange = document.getElementById('view-range').textContent;
      document.getElementById('reset').click();
      frame(() => {
        b.resetTaskBars = b.taskBars;
        b.interacted = '1';
      });
    });
  });
})();
</script>
JS
sed -e '/<\/body>/{r '"$work/interact.js" -e 'd}' "$report" >"$work/report/interact.html"
echo '</body></html>' >>"$work/report/interact.html"
if ! timeout 60 "$chromium" "${flags[@]}" --window-size=1400,900 --dump-dom "file://$work/report/interact.html" \
    >"$work/interact_dom.html" 2>>"$work/chromium.log"; then
  echo "FAIL: chromium --dump-dom (interaction) failed or timed out"
  exit 1
fi
body=$(grep -o '<body[^>]*>' "$work/interact_dom.html" || true)
echo "after zoom, pan and reset: $body"
attr() { [[ "$body" =~ $1=\"([^\"]*)\" ]] && echo "${BASH_REMATCH[1]}"; }
zoomed=$(attr data-zoomed-task-bars)
if [ "$(attr data-interacted)" != 1 ] || [ -z "$zoomed" ] || [ "$zoomed" -le 0 ] || [ "$zoomed" -ge "$tasks" ] ||
   [ "$(attr data-reset-task-bars)" != "$tasks" ] || [ "$(attr data-panned-range)" = "$(attr data-zoomed-range)" ]; then
  echo "FAIL: zooming in should draw fewer (but some) task bars, dragging should move the view, reset should draw all $tasks"
  exit 1
fi

png="$artifacts/svp_prof_report.png"
rm -f "$png"
if ! timeout 60 "$chromium" "${flags[@]}" --screenshot="$png" --window-size=1400,900 "file://$report" \
    >/dev/null 2>>"$work/chromium.log"; then
  echo "FAIL: chromium --screenshot failed or timed out"
  tail -20 "$work/chromium.log"
  exit 1
fi
size=$(stat -c %s "$png" 2>/dev/null || echo 0)
# A blank 1400×900 PNG compresses to a few KB; a drawn timeline with tables is far larger.
if [ "$size" -lt 20000 ]; then
  echo "FAIL: screenshot $png is only $size bytes"
  exit 1
fi
echo "OK: $tasks task bars, $expected_ops operator slices drawn; screenshot $png ($size bytes)"
