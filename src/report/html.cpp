// The head of every HTML page: one self-contained file (inline CSS, SVG plots, no scripts,
// nothing fetched), whatever the document.
#include "report/format_util.hpp"

#include <fmt/format.h>

namespace trainbench::report::detail {

namespace {

constexpr const char* k_css =
    R"(body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1000px;color:#1d2330;line-height:1.4}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #d8dde6;padding-bottom:3px}
.conv{background:#f1f5fb;border-left:4px solid #3a6ea5;padding:8px 12px;margin:10px 0}
table{border-collapse:collapse;margin:6px 0;font-size:14px}td,th{padding:3px 10px;border-bottom:1px solid #e6e9ef;text-align:left;vertical-align:top}
th{background:#f6f7f9}td.num{text-align:right;font-variant-numeric:tabular-nums;font-family:ui-monospace,Menlo,Consolas,monospace}
.origin{color:#6b7280;font-size:12px}.grid2{display:flex;gap:28px;flex-wrap:wrap}
.pass{color:#11803c;font-weight:600}.fail{color:#c21f1f;font-weight:700}.warning{color:#a15c00}.note{color:#555}
pre{background:#f6f7f9;border:1px solid #e0e3e8;padding:10px;overflow-x:auto;font-size:12px}
svg{display:block;margin:8px 0;max-width:100%;height:auto}svg .title{font-size:14px;font-weight:600;fill:#1d2330}
svg .window{fill:#3a6ea5;fill-opacity:.12}svg .warmup{fill:#e08a00;fill-opacity:.18}svg .band{font-size:11px;fill:#444}
svg .grid{stroke:#e5e7eb}svg .axis{stroke:#6b7280}svg .tick{font-size:11px;fill:#4b5563}svg .label{font-size:12px;fill:#374151}
svg .line{fill:none;stroke:#3a6ea5;stroke-width:1.5}svg .pt{fill:#3a6ea5}svg .pt.warm{fill:#e08a00}svg .clipped{fill:#e08a00}
svg .empty{font-size:13px;fill:#6b7280}dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;font-size:14px}dt{color:#4b5563}dd{margin:0})";

}  // namespace

std::string html_head(const std::string& title) {
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
           "content=\"width=device-width, initial-scale=1\">\n<title>" +
           html_escape(title) + "</title>\n<style>\n" + k_css + "\n</style>\n</head>\n<body>\n";
}

}  // namespace trainbench::report::detail
