//===- Report.h - text of the tools' reports --------------------*- C++ -*-===//
//
// The pieces of text mxfp8-run and mxfp8-launch print alike, in standard
// C++: aligned tables, dB and printf-style numbers, and the file names of
// results (docs/mxfp8-run.md, "Outputs").
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_REPORT_H
#define MXFP8TRAIN_SUPPORT_REPORT_H

#include <string>
#include <vector>

namespace mlir::mxfp8train {

/// `rows` as left-aligned columns, each line indented by two spaces and
/// ended by '\n'.
std::string formatTable(const std::vector<std::vector<std::string>> &rows);

/// `value` printed with a printf `format` holding one double conversion.
std::string formatDouble(const char *format, double value);

/// A dB value: `inf`, `-inf`, `nan` or two decimals.
std::string formatDb(double db);

/// `name` made safe as a file name: characters other than letters, digits,
/// `_`, `-` and `.` become `_`; an empty name or one starting with `.`
/// gets a leading `_`.
std::string sanitizeFileName(const std::string &name);

/// One unique file stem per name: the sanitized name, with `_<index>`
/// appended where two names would share one.
std::vector<std::string>
getUniqueFileStems(const std::vector<std::string> &names);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_REPORT_H
