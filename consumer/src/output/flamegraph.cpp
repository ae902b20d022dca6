// SPDX-License-Identifier: Apache-2.0
#include "output/flamegraph.h"

#include <cstdio>
#include <map>
#include <memory>

#include "output/safe_text.h"

namespace vtscope {
namespace {

constexpr int kWidth = 1200;
constexpr int kFrameHeight = 16;
constexpr int kTop = 50;     // title, buttons and the match line
constexpr int kBottom = 30;  // the details line
constexpr int kPad = 10;

struct Node {
    std::string name;
    uint64_t value = 0;
    std::map<std::string, std::unique_ptr<Node>> children;
};

uint32_t hash(const std::string& s) {
    uint32_t h = 2166136261u;
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    return h;
}

// Towers (trace roots) blue, unresolved and marker frames grey, kernel orange, Java green,
// native warm red-yellow.
std::string color(const std::string& name, int depth) {
    uint32_t h = hash(name);
    int v1 = static_cast<int>(h % 55), v2 = static_cast<int>((h >> 8) % 55);
    char buffer[32];
    if (depth <= 1)
        std::snprintf(buffer, sizeof(buffer), "rgb(%d,%d,%d)", 80 + v1, 130 + v2, 220);
    else if (name.rfind("[", 0) == 0)
        std::snprintf(buffer, sizeof(buffer), "rgb(%d,%d,%d)", 170 + v1 / 2, 170 + v1 / 2, 170 + v1 / 2);
    else if (name.size() > 4 && name.compare(name.size() - 4, 4, "_[k]") == 0)
        std::snprintf(buffer, sizeof(buffer), "rgb(%d,%d,%d)", 230, 140 + v1, 40 + v2 / 2);
    else if (name.find("::") == std::string::npos && name.find('.') != std::string::npos &&
             name.find(' ') == std::string::npos)  // a Java method from the perf map: pkg.Class.method
        std::snprintf(buffer, sizeof(buffer), "rgb(%d,%d,%d)", 50 + v2, 180 + v1, 60 + v2);
    else
        std::snprintf(buffer, sizeof(buffer), "rgb(%d,%d,%d)", 225, 80 + v1 * 2, 50 + v2);
    return buffer;
}

// The label that fits a frame w pixels wide, as the script's place() computes it after a zoom:
// written into the SVG too, so the graph reads where its script does not run (an <img> in a page).
std::string label(const std::string& name, double w) {
    int chars = static_cast<int>((w - 6) / 7);
    if (chars < 3) return "";
    if (name.size() <= static_cast<size_t>(chars)) return name;
    // Cut between characters, not inside one (a continuation byte is 10xxxxxx).
    size_t cut = static_cast<size_t>(chars - 2);
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) cut--;
    return name.substr(0, cut) + "..";
}

int depth_of(const Node& node) {
    int d = 0;
    for (const auto& [name, child] : node.children) d = std::max(d, depth_of(*child));
    return d + 1;
}

void emit(const Node& node, uint64_t start, int depth, int max_depth, uint64_t total, std::string& out) {
    double x = kPad + static_cast<double>(start) * (kWidth - 2 * kPad) / static_cast<double>(total);
    double w = static_cast<double>(node.value) * (kWidth - 2 * kPad) / static_cast<double>(total);
    int y = kTop + (max_depth - 1 - depth) * kFrameHeight;
    char buffer[256];
    std::string name = xml_safe(node.name);
    std::snprintf(buffer, sizeof(buffer), "<g class=\"f\" data-s=\"%llu\" data-n=\"%llu\" data-d=\"%d\"><title>",
                  static_cast<unsigned long long>(start), static_cast<unsigned long long>(node.value), depth);
    out += buffer;
    std::snprintf(buffer, sizeof(buffer), " (%llu samples, %.2f%%)</title>",
                  static_cast<unsigned long long>(node.value),
                  100.0 * static_cast<double>(node.value) / static_cast<double>(total));
    out += name + buffer;
    std::snprintf(buffer, sizeof(buffer),
                  "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>", x, y, w,
                  kFrameHeight - 1, color(node.name, depth).c_str());
    out += buffer;
    std::snprintf(buffer, sizeof(buffer), "<text x=\"%.2f\" y=\"%d\">", x + 3, y + kFrameHeight - 4);
    out += buffer + xml_safe(label(node.name, w)) + "</text></g>\n";
    uint64_t offset = start;
    for (const auto& [child_name, child] : node.children) {
        emit(*child, offset, depth + 1, max_depth, total, out);
        offset += child->value;
    }
}

// The script: no library, no network. Labels are filled in by it (so they fit after a zoom).
constexpr const char* kScript = R"JS(
"use strict";
var W = WIDTH, PAD = PADDING, frames = [], names = [], zoomed = null;
function el(id) { return document.getElementById(id); }
function init() {
  var gs = document.querySelectorAll("g.f");
  for (var i = 0; i < gs.length; i++) {
    var g = gs[i], t = g.querySelector("title").textContent;
    var f = { g: g, s: +g.getAttribute("data-s"), n: +g.getAttribute("data-n"), d: +g.getAttribute("data-d"),
              name: t.substring(0, t.lastIndexOf(" (")), rect: g.querySelector("rect"), text: g.querySelector("text"),
              fill: g.querySelector("rect").getAttribute("fill") };
    frames.push(f);
    g.addEventListener("click", (function (f) { return function () { zoom(f); }; })(f));
    g.addEventListener("mouseover", (function (f) { return function () { el("details").textContent = f.g.querySelector("title").textContent; }; })(f));
  }
  el("reset").addEventListener("click", function () { zoom(null); });
  el("search").addEventListener("click", function () {
    var term = window.prompt("Search frames (regular expression):", "");
    if (term !== null) search(term);
  });
  el("clear").addEventListener("click", function () { search(""); });
  zoom(null);
  var m = /[#&]search=([^&]*)/.exec(window.location.hash);
  if (m) search(decodeURIComponent(m[1]));
  if (/[#&]selftest/.test(window.location.hash)) selftest();
  document.documentElement.setAttribute("data-ready", "1");
}
function place(f, x, w) {
  f.rect.setAttribute("x", x.toFixed(2));
  f.rect.setAttribute("width", w.toFixed(2));
  f.text.setAttribute("x", (x + 3).toFixed(2));
  var chars = Math.floor((w - 6) / 7);
  f.text.textContent = chars < 3 ? "" : (f.name.length <= chars ? f.name : f.name.substring(0, chars - 2) + "..");
}
function zoom(z) {
  zoomed = z;
  if (!frames.length) return;
  var s0 = z ? z.s : 0, n0 = z ? z.n : frames[0].n, d0 = z ? z.d : 0;
  var scale = (W - 2 * PAD) / n0;
  for (var i = 0; i < frames.length; i++) {
    var f = frames[i];
    var inside = f.d >= d0 && f.s >= s0 && f.s + f.n <= s0 + n0;
    var ancestor = f.d < d0 && f.s <= s0 && f.s + f.n >= s0 + n0;
    if (inside) { f.g.style.display = ""; f.g.style.opacity = ""; place(f, PAD + (f.s - s0) * scale, f.n * scale); }
    else if (ancestor) { f.g.style.display = ""; f.g.style.opacity = "0.5"; place(f, PAD, n0 * scale); }
    else f.g.style.display = "none";
  }
  el("reset").style.opacity = z ? "1" : "0.3";
}
function search(term) {
  var re = null;
  if (term) { try { re = new RegExp(term); } catch (e) { el("matched").textContent = "invalid expression"; return -1; } }
  var spans = [];
  for (var i = 0; i < frames.length; i++) {
    var f = frames[i], hit = re !== null && re.test(f.name);
    f.rect.setAttribute("fill", hit ? "rgb(230,0,230)" : f.fill);
    if (hit) spans.push([f.s, f.s + f.n]);
  }
  spans.sort(function (a, b) { return a[0] - b[0]; });
  var covered = 0, end = -1;
  for (var j = 0; j < spans.length; j++) {
    if (spans[j][0] >= end) { covered += spans[j][1] - spans[j][0]; end = spans[j][1]; }
    else if (spans[j][1] > end) { covered += spans[j][1] - end; end = spans[j][1]; }
  }
  var share = frames.length ? 100 * covered / frames[0].n : 0;
  el("matched").textContent = re ? "Matched: " + share.toFixed(1) + "% (" + term + ")" : "";
  return share;
}
function selftest() {
  var towers = frames.filter(function (f) { return f.d === 1; });
  if (towers.length) zoom(towers[0]);
  var visible = frames.filter(function (f) { return f.g.style.display !== "none"; }).length;
  zoom(null);
  var share = search("spin");
  search("");
  document.documentElement.setAttribute("data-selftest",
    "towers=" + towers.length + " zoom_visible=" + visible + " search_spin=" + share.toFixed(1));
}
window.addEventListener("load", init);
)JS";

}  // namespace

std::string render_flamegraph_svg(const std::vector<FoldedStack>& stacks, const std::string& title) {
    Node root;
    root.name = "all";
    for (const FoldedStack& s : stacks) {
        root.value += s.count;
        Node* node = &root;
        for (const std::string& f : s.frames) {
            auto& child = node->children[f];
            if (!child) {
                child = std::make_unique<Node>();
                child->name = f;
            }
            child->value += s.count;
            node = child.get();
        }
    }
    int max_depth = depth_of(root);
    int height = kTop + max_depth * kFrameHeight + kBottom;
    std::string out;
    char buffer[512];
    std::snprintf(buffer, sizeof(buffer),
                  "<?xml version=\"1.0\" standalone=\"no\"?>\n"
                  "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                  "xmlns=\"http://www.w3.org/2000/svg\">\n",
                  kWidth, height, kWidth, height);
    out += buffer;
    out +=
        "<style>text { font-family: monospace; font-size: 12px; fill: #000; pointer-events: none; } "
        "g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; } "
        ".button { font-size: 12px; fill: #333; cursor: pointer; pointer-events: all; } "
        "#title { font-size: 16px; text-anchor: middle; }</style>\n";
    out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#f8f8f0\"/>\n";
    std::snprintf(buffer, sizeof(buffer), "<text id=\"title\" x=\"%d\" y=\"20\">", kWidth / 2);
    out += buffer + xml_safe(title) + "</text>\n";
    std::snprintf(buffer, sizeof(buffer),
                  "<text id=\"reset\" class=\"button\" x=\"%d\" y=\"40\">Reset zoom</text>\n"
                  "<text id=\"search\" class=\"button\" x=\"%d\" y=\"40\">Search</text>\n"
                  "<text id=\"clear\" class=\"button\" x=\"%d\" y=\"40\">Clear</text>\n"
                  "<text id=\"matched\" x=\"%d\" y=\"40\"></text>\n"
                  "<text id=\"details\" x=\"%d\" y=\"%d\"></text>\n",
                  kPad, kWidth - 120, kWidth - 60, kWidth / 2, kPad, height - 10);
    out += buffer;
    out += "<g id=\"frames\">\n";
    if (root.value > 0) emit(root, 0, 0, max_depth, root.value, out);
    out += "</g>\n<script type=\"text/ecmascript\"><![CDATA[";
    std::string script = kScript;
    auto replace = [&](const std::string& from, const std::string& to) {
        if (auto at = script.find(from); at != std::string::npos) script.replace(at, from.size(), to);
    };
    replace("WIDTH", std::to_string(kWidth));
    replace("PADDING", std::to_string(kPad));
    out += script;
    out += "]]></script>\n</svg>\n";
    return out;
}

}  // namespace vtscope
