#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ipcbench::report {

struct chart_series {
    std::string name;
    std::vector<std::pair<double, double>> points;  // (x, y), y > 0 on a log axis
};

struct chart_axes {
    std::string title, x_label, y_label;
    bool x_log = false, y_log = false;
    std::vector<std::string> x_categories;  // when set, x values are indices into it
};

// A line chart with markers, gridlines, tick labels and a legend, as an inline <svg> element.
std::string svg_line_chart(const chart_axes &axes, const std::vector<chart_series> &series);
// Horizontal bars, one per (label, value).
std::string svg_bar_chart(const std::string &title, const std::string &value_label,
                          const std::vector<std::pair<std::string, double>> &bars);

std::string html_escape(const std::string &text);

}  // namespace ipcbench::report
