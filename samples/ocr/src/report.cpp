#include "report.h"

#include <cstdio>
#include <numeric>

#include "text_metrics.h"

namespace ocr {
namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += (s.empty() ? "" : "\n") + l;
  return s;
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

}  // namespace

Score& Score::operator+=(const Score& o) {
  edits += o.edits, chars += o.chars, lines += o.lines, exact += o.exact;
  required += o.required, required_exact += o.required_exact;
  return *this;
}

std::vector<std::string> texts(const PageResult& r) {
  std::vector<std::string> out;
  for (const LineResult& l : r.lines) out.push_back(l.text);
  return out;
}

Score score_page(const PageResult& r) {
  const std::vector<std::string>& truth = r.page->truth;
  Score s;
  s.lines = truth.size();
  s.required = r.page->exact ? truth.size() : 0;
  for (const std::string& t : truth) s.chars += code_points(t).size();
  if (r.lines.size() != truth.size()) {
    s.edits = edit_distance(joined(texts(r)), joined(truth));
    return s;
  }
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const std::size_t e = edit_distance(r.lines[i].text, truth[i]);
    s.edits += e;
    s.exact += e == 0;
    s.required_exact += e == 0 && r.page->exact;
  }
  return s;
}

void print_page(const PageResult& r) {
  const Page& p = *r.page;
  const PageTimes& t = r.times;
  std::printf("%s (%dx%d%s): %zu lines found, %zu in the truth\n", p.name.c_str(), p.image.width, p.image.height,
              p.exact ? "" : ", noisy: scored by CER", r.lines.size(), p.truth.size());
  std::printf("  latency: det %.1f ms, cls %zu x %.1f ms, rec %zu x %.1f ms, host %.1f ms, page %.1f ms\n", t.det,
              t.cls.size(), mean(t.cls), t.rec.size(), mean(t.rec), t.host, t.total);
  if (!r.error.empty()) std::printf("  ERROR: %s\n", r.error.c_str());
  const bool paired = r.lines.size() == p.truth.size();
  const std::size_t n = std::max(r.lines.size(), p.truth.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string got = i < r.lines.size() ? r.lines[i].text : "";
    const std::string want = i < p.truth.size() ? p.truth[i] : "";
    std::string verdict = "  ";
    if (paired) {
      const std::size_t e = edit_distance(got, want);
      verdict = e == 0 ? "ok" : "~" + std::to_string(e);
    }
    std::string how;
    if (i < r.lines.size()) {
      const LineResult& l = r.lines[i];
      char buf[96];
      std::snprintf(buf, sizeof buf, "box %3.0fx%-3.0f at (%3.0f,%3.0f), gear %3d%s", l.box.width(), l.box.height(),
                    l.box.corners()[0].x, l.box.corners()[0].y, l.gear_width, l.flipped ? ", turned 180" : "");
      how = buf;
    }
    std::printf("  %-3s %-28s | %-28s %s\n", verdict.c_str(), ("\"" + got + "\"").c_str(), ("\"" + want + "\"").c_str(),
                how.c_str());
  }
}

}  // namespace ocr
