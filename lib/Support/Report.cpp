//===- Report.cpp - text of the tools' reports ----------------------------===//

#include "mxfp8train/Support/Report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

using namespace mlir::mxfp8train;

std::string mlir::mxfp8train::formatTable(
    const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> widths;
  for (const auto &row : rows)
    for (size_t c = 0; c < row.size(); ++c) {
      if (widths.size() <= c)
        widths.push_back(0);
      widths[c] = std::max(widths[c], row[c].size());
    }
  std::string text;
  for (const auto &row : rows) {
    text += " ";
    for (size_t c = 0; c < row.size(); ++c) {
      text += " " + row[c];
      if (c + 1 != row.size())
        text.append(widths[c] - row[c].size() + 1, ' ');
    }
    text += "\n";
  }
  return text;
}

std::string mlir::mxfp8train::formatDouble(const char *format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

std::string mlir::mxfp8train::formatDb(double db) {
  if (std::isnan(db))
    return "nan";
  if (std::isinf(db))
    return db > 0 ? "inf" : "-inf";
  return formatDouble("%.2f", db);
}

std::string mlir::mxfp8train::sanitizeFileName(const std::string &name) {
  std::string out;
  for (char c : name)
    out.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                          c == '-' || c == '.'
                      ? c
                      : '_');
  if (out.empty() || out.front() == '.')
    out.insert(out.begin(), '_');
  return out;
}

std::vector<std::string>
mlir::mxfp8train::getUniqueFileStems(const std::vector<std::string> &names) {
  std::map<std::string, int> counts;
  for (const std::string &name : names)
    ++counts[sanitizeFileName(name)];
  std::vector<std::string> stems;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string stem = sanitizeFileName(names[i]);
    if (counts[stem] > 1)
      stem += "_" + std::to_string(i);
    stems.push_back(stem);
  }
  return stems;
}
