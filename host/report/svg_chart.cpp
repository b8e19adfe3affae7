#include "report/svg_chart.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "text/printable_text.hpp"

namespace ipcbench::report {
namespace {

constexpr double width = 760, height = 380, left = 80, right = 200, top = 40, bottom = 60;
const char *palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                         "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939"};

std::string short_number(double v) {
    const double a = std::fabs(v);
    if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
    if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
    if (a >= 1e3) return fmt::format("{:.3g}k", v / 1e3);
    return fmt::format("{:.3g}", v);
}

struct scale {
    double lo, hi;
    bool log;
    double pixel_lo, pixel_hi;
    double map(double v) const {
        double a = log ? std::log10(std::max(v, 1e-12)) : v;
        double b = log ? std::log10(lo) : lo, c = log ? std::log10(hi) : hi;
        double t = c > b ? (a - b) / (c - b) : 0.5;
        return pixel_lo + t * (pixel_hi - pixel_lo);
    }
    std::vector<double> ticks() const {
        std::vector<double> t;
        if (log) {
            const int first = static_cast<int>(std::floor(std::log10(lo)));
            const int last = static_cast<int>(std::ceil(std::log10(hi)));
            for (int e = first; e <= last; ++e) {
                const double d = std::pow(10, e);
                if (d >= lo * 0.9999 && d <= hi * 1.0001) t.push_back(d);
            }
            if (t.size() < 2) t = {lo, hi};
        } else {
            for (int i = 0; i <= 4; ++i) t.push_back(lo + (hi - lo) * i / 4);
        }
        return t;
    }
};

}  // namespace

std::string html_escape(const std::string &text) {
    return text::html_text(text);
}

// Only points a chart can place: finite, within +-1e300 (so doubling or a log stays finite),
// positive on a log axis. A result file may hold anything (size 0, 1e308 MB/s, NaN).
std::vector<chart_series> drawable(const chart_axes &axes, const std::vector<chart_series> &in) {
    auto fits = [](double v, bool log) {
        return std::isfinite(v) && std::fabs(v) <= 1e300 && (!log || v >= 1e-300);
    };
    std::vector<chart_series> out = in;
    for (auto &s : out)
        s.points.erase(std::remove_if(s.points.begin(), s.points.end(),
                                      [&](const std::pair<double, double> &p) {
                                          return !fits(p.first, axes.x_log) ||
                                                 !fits(p.second, axes.y_log);
                                      }),
                       s.points.end());
    return out;
}

namespace {

// The axes' ranges over every drawable point; false when there is none.
bool axis_ranges(const chart_axes &axes, const std::vector<chart_series> &series, scale &xs,
                 scale &ys) {
    double x_lo = 1e300, x_hi = -1e300, y_lo = 1e300, y_hi = -1e300;
    for (const auto &s : series)
        for (auto [x, y] : s.points) {
            if (axes.y_log && y <= 0) continue;
            x_lo = std::min(x_lo, x);
            x_hi = std::max(x_hi, x);
            y_lo = std::min(y_lo, y);
            y_hi = std::max(y_hi, y);
        }
    if (x_lo > x_hi) return false;
    if (!axes.y_log) y_lo = std::min(0.0, y_lo);
    if (x_lo == x_hi) x_hi = x_lo + 1;
    if (y_lo == y_hi) y_hi = y_lo * 2 + 1;
    if (axes.y_log) {
        y_lo = std::pow(10, std::floor(std::log10(y_lo)));
        y_hi = std::pow(10, std::ceil(std::log10(y_hi)));
    }
    xs = scale{x_lo, x_hi, axes.x_log, left, width - right};
    ys = scale{y_lo, y_hi, axes.y_log, height - bottom, top};
    return true;
}

// The x axis: categories, powers of two (message sizes) or round numbers.
std::string x_axis(const chart_axes &axes, const scale &xs) {
    std::vector<double> xticks;
    xticks.reserve(axes.x_categories.size());
    if (!axes.x_categories.empty()) {
        for (std::size_t i = 0; i < axes.x_categories.size(); ++i)
            xticks.push_back(static_cast<double>(i));
    } else if (axes.x_log) {
        const int first = static_cast<int>(std::floor(std::log2(xs.lo)));
        const int last = static_cast<int>(std::ceil(std::log2(xs.hi)));
        for (int e = first; e <= last; e += 2) {
            const double v = std::pow(2, e);
            if (v >= xs.lo * 0.9999 && v <= xs.hi * 1.0001) xticks.push_back(v);
        }
    } else {
        xticks = xs.ticks();
    }
    std::string svg;
    for (double t : xticks) {
        // Log x axes here are message sizes: label them in binary units (2K, not 2.05k).
        std::string label = !axes.x_categories.empty()
                                ? axes.x_categories[static_cast<std::size_t>(t)]
                            : axes.x_log && t >= 1048576 ? fmt::format("{:g}M", t / 1048576)
                            : axes.x_log && t >= 1024    ? fmt::format("{:g}K", t / 1024)
                                                         : short_number(t);
        svg += fmt::format(
            "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" class=\"grid\"/>"
            "<text x=\"{:.1f}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>\n",
            xs.map(t), xs.map(t), top, height - bottom, xs.map(t), height - bottom + 16,
            html_escape(label));
    }
    return svg;
}

// One series: its line, a dot with a tooltip per point, and its legend entry.
std::string series_svg(const chart_axes &axes, const scale &xs, const scale &ys,
                       const chart_series &s, std::size_t i) {
    const char *color = palette[i % (sizeof palette / sizeof *palette)];
    std::string points;
    for (auto [x, y] : s.points)
        if (!axes.y_log || y > 0) points += fmt::format("{:.1f},{:.1f} ", xs.map(x), ys.map(y));
    std::string svg = fmt::format(
        "<polyline class=\"series\" data-series=\"{}\" fill=\"none\" "
        "stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n",
        html_escape(s.name), color, points);
    for (auto [x, y] : s.points)
        if (!axes.y_log || y > 0)
            svg += fmt::format(
                "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{}: "
                "{}</title></circle>\n",
                xs.map(x), ys.map(y), color, html_escape(s.name), short_number(y));
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\" class=\"legend\">{}</text>\n",
        width - right + 12, top + 18 * i, color, width - right + 30, top + 18 * i + 10,
        html_escape(s.name));
    return svg;
}

// One chart of at most a palette's series, on scales shared with its siblings.
std::string one_chart(const chart_axes &axes, const std::string &title, const scale &xs,
                      const scale &ys, const std::vector<chart_series> &series) {
    std::string svg = fmt::format(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
        "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n"
        "<text x=\"{}\" y=\"22\" class=\"title\">{}</text>\n",
        width, height, width, height, html_escape(title), left, html_escape(title));
    for (double t : ys.ticks())
        svg += fmt::format(
            "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>"
            "<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>\n",
            left, width - right, ys.map(t), ys.map(t), left - 6, ys.map(t) + 4, short_number(t));
    svg += x_axis(axes, xs);
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" class=\"label\" text-anchor=\"middle\">{}</text>\n"
        "<text x=\"16\" y=\"{}\" class=\"label\" transform=\"rotate(-90 16 {})\" "
        "text-anchor=\"middle\">{}</text>\n",
        (left + width - right) / 2, height - 18, html_escape(axes.x_label),
        (top + height - bottom) / 2, (top + height - bottom) / 2, html_escape(axes.y_label));
    for (std::size_t i = 0; i < series.size(); ++i) svg += series_svg(axes, xs, ys, series[i], i);
    return svg + "</svg>\n";
}

}  // namespace

std::string svg_line_chart(const chart_axes &axes, const std::vector<chart_series> &raw_series) {
    const std::vector<chart_series> series = drawable(axes, raw_series);
    scale xs{}, ys{};
    if (!axis_ranges(axes, series, xs, ys))
        return "<p>No data for " + html_escape(axes.title) + ".</p>";
    // More series than the palette has colours: small multiples on the same scales, each of
    // distinct colours and a legend that fits, never a colour for two lines of one chart.
    const std::size_t per_chart = sizeof palette / sizeof *palette;
    const std::size_t charts = (series.size() + per_chart - 1) / per_chart;
    std::string out;
    for (std::size_t c = 0; c < charts; ++c) {
        const auto first = series.begin() + static_cast<std::ptrdiff_t>(c * per_chart);
        const auto last =
            c + 1 == charts ? series.end() : first + static_cast<std::ptrdiff_t>(per_chart);
        const std::string title =
            charts == 1 ? axes.title : fmt::format("{} ({} of {})", axes.title, c + 1, charts);
        out += one_chart(axes, title, xs, ys, std::vector<chart_series>(first, last));
    }
    return out;
}

std::string svg_bar_chart(const std::string &title, const std::string &value_label,
                          const std::vector<std::pair<std::string, double>> &bars) {
    if (bars.empty()) return "<p>No data for " + html_escape(title) + ".</p>";
    const double row = 20, chart_height = top + bottom / 2 + row * bars.size();
    double max = 0;
    for (const auto &b : bars) max = std::max(max, b.second);
    if (max <= 0) max = 1;
    const double bar_left = 230, bar_width = width - bar_left - 80;
    std::string svg = fmt::format(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
        "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n"
        "<text x=\"10\" y=\"22\" class=\"title\">{} ({})</text>\n",
        width, chart_height, width, chart_height, html_escape(title), html_escape(title),
        html_escape(value_label));
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const double y = top + row * i;
        const double w = std::max(1.0, bars[i].second / max * bar_width);
        svg += fmt::format(
            "<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>"
            "<rect class=\"bar\" x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" "
            "fill=\"{}\"><title>{}</title></rect>"
            "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\">{}</text>\n",
            bar_left - 6, y + 13, html_escape(bars[i].first), bar_left, y + 2, w, row - 4,
            palette[i % (sizeof palette / sizeof *palette)], short_number(bars[i].second),
            bar_left + w + 4, y + 13, short_number(bars[i].second));
    }
    return svg + "</svg>\n";
}

}  // namespace ipcbench::report
